// Issue 33: a dump whose pool conditions are dated years ahead (a wrong clock or mock, as dumps in
// the field have) starts at the update's own instant, names the suspect timestamps, and gives no
// decade-long or negative durations. The dump is a golden case with its pool times moved ten years on.
import { ocUpgradeStatusDir } from "@lockstep/testing";
import { describe, expect, it } from "vitest";
import { dumpClock } from "./clock.js";
import { rehearse } from "./engine.js";
import { renderForecast } from "./forecast.js";
import { loadSnapshotDir } from "./load-dir.js";
import type { RehearsalSnapshot } from "./snapshot.js";

const CASE = "4.16.0-compact";
const TEN_YEARS_MS = 3652 * 24 * 3600_000;

function shiftPoolConditions(snap: RehearsalSnapshot, ms: number): RehearsalSnapshot {
  const out = structuredClone(snap);
  for (const p of out.pools) {
    for (const c of (p.status?.conditions ?? []) as Array<{ lastTransitionTime?: string }>) {
      if (c.lastTransitionTime) c.lastTransitionTime = new Date(Date.parse(c.lastTransitionTime) + ms).toISOString().replace(/\.\d{3}Z$/, "Z");
    }
  }
  return out;
}

describe("a dump with pool conditions ten years ahead", () => {
  const plain = loadSnapshotDir(ocUpgradeStatusDir(), CASE);
  const future = shiftPoolConditions(plain, TEN_YEARS_MS);
  const to = plain.clusterVersion.status.desired.version as string;
  const updateStart = Date.parse(plain.clusterVersion.status.history[0].startedTime);

  it("keeps the dump's own instant (the ClusterVersion and operators, as oc picks it)", () => {
    const c = dumpClock(future);
    expect(c.now).toEqual(dumpClock(plain).now);
    expect(c.now.getTime()).toBeGreaterThanOrEqual(updateStart);
    expect(c.now.getTime()).toBeLessThan(updateStart + 24 * 3600_000);
    expect(new Set(c.suspect.map((x) => x.object.split("/")[0]))).toEqual(new Set(["MachineConfigPool"]));
    expect(c.suspect.every((x) => x.field.startsWith("status.conditions[") && x.field.endsWith("lastTransitionTime"))).toBe(true);
  });

  it("forecasts from the update's own time, warns of the suspect timestamps, and no duration is negative or decade-long", () => {
    const f = rehearse(future, { to, seed: 2 });
    const g = rehearse(plain, { to, seed: 2 });
    expect(f.start).toBe(g.start);
    expect(f.suspectTimestamps.length).toBeGreaterThan(0);
    expect(f.warnings.join("\n")).toMatch(/suspect timestamp\(s\) in \d+ object\(s\).*MachineConfigPool\/master status\.conditions\[\w+\]\.lastTransitionTime=20[3-9]\d-/);
    expect(renderForecast(f)).toMatch(/^Rehearsal of .*\nWarning: \d+ suspect timestamp/);
    for (const p of f.pools) {
      if (p.start) expect(Date.parse(p.start), p.pool).toBeGreaterThanOrEqual(updateStart - 3600_000);
      if (p.finish) expect(Date.parse(p.finish), p.pool).toBeLessThan(Date.parse(f.start) + 72 * 3600_000);
      if (p.durationSeconds !== null) {
        expect(p.durationSeconds, p.pool).toBeGreaterThanOrEqual(0);
        expect(p.durationSeconds, p.pool).toBeLessThan(72 * 3600);
      }
    }
    // The suspect times change nothing else: the same forecast as the plain dump, but for the warnings.
    const { warnings: _w, suspectTimestamps: _s, ...rest } = f;
    const { warnings: _w2, suspectTimestamps: _s2, ...restPlain } = g;
    expect(rest).toEqual(restPlain);
  });

  it("-o json carries the warnings and the suspect timestamps", () => {
    const json = JSON.parse(JSON.stringify(rehearse(future, { to, seed: 2 }))) as { warnings: string[]; suspectTimestamps: Array<{ object: string; field: string; value: string }> };
    expect(json.warnings.length).toBe(1);
    expect(json.suspectTimestamps[0]).toEqual({ object: expect.stringMatching(/^MachineConfigPool\//), field: expect.stringMatching(/lastTransitionTime$/), value: expect.stringMatching(/^20[3-9]\d-/) });
  });
});
