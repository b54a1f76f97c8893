import { describe, expect, it } from "vitest";
import { createMetricsRegistry } from "./metrics.js";
import { Readiness } from "./readiness.js";
import { describeStaleSince, describeStaleness, freshnessOf, StateFreshness } from "./state-freshness.js";

describe("freshnessOf", () => {
  it.each([
    { ageMs: 0, heard: true, fresh: true },
    { ageMs: 15_000, heard: true, fresh: true },
    { ageMs: 15_001, heard: true, fresh: false },
    { ageMs: 20_000, heard: false, fresh: false },
  ])("age $ageMs ms (heard $heard) against 15 s: fresh $fresh", ({ ageMs, heard, fresh }) => {
    expect(freshnessOf({ ageMs, heard }, 15_000)).toEqual({ fresh, ageSeconds: ageMs / 1000, maxAgeSeconds: 15, heard });
  });
});

describe("describeStaleness", () => {
  it("says how long the watcher has been silent, in whole seconds", () => {
    expect(describeStaleness(freshnessOf({ ageMs: 41_400, heard: true }, 15_000))).toBe("the watcher has not been heard from for 41 s");
    expect(describeStaleness(freshnessOf({ ageMs: 20_000, heard: false }, 15_000))).toBe("the watcher has not been heard from since this service started 20 s ago");
  });
});

describe("describeStaleSince", () => {
  it("names the time of the last heartbeat, the same whenever it is asked", () => {
    const now = Date.parse("2026-11-25T12:01:22.700Z");
    expect(describeStaleSince(freshnessOf({ ageMs: 41_400, heard: true }, 15_000), now)).toBe("the watcher has not been heard from since 2026-11-25T12:00:41Z");
    expect(describeStaleSince(freshnessOf({ ageMs: 51_400, heard: true }, 15_000), now + 10_000)).toBe("the watcher has not been heard from since 2026-11-25T12:00:41Z");
    expect(describeStaleSince(freshnessOf({ ageMs: 20_000, heard: false }, 15_000), now)).toBe("the watcher has not been heard from since this service started at 2026-11-25T12:01:02Z");
  });
});

describe("StateFreshness", () => {
  it("drives readiness, the age gauge and change listeners from the source's age", async () => {
    let age = { ageMs: 2_000, heard: true };
    const readiness = new Readiness();
    const registry = createMetricsRegistry({ defaultMetrics: false });
    const f = new StateFreshness({ source: { age: () => age }, maxAgeMs: 15_000, readiness, registry });
    const seen: boolean[] = [];
    f.onChange((x) => seen.push(x.fresh));

    expect((await readiness.evaluate()).ready).toBe(true);
    expect(await registry.metrics()).toContain("lockstep_state_age_seconds 2");

    age = { ageMs: 41_000, heard: true };
    expect(f.check().fresh).toBe(false);
    expect(f.check().fresh).toBe(false); // told once per change
    const r = await readiness.evaluate();
    expect(r.ready).toBe(false);
    expect(r.checks).toEqual([{ name: "state-fresh", ok: false, reason: "the watcher has not been heard from for 41 s (bound 15 s)" }]);
    expect(await registry.metrics()).toContain("lockstep_state_age_seconds 41");

    age = { ageMs: 100, heard: true };
    f.check();
    expect(seen).toEqual([false, true]);
    expect((await readiness.evaluate()).ready).toBe(true);
  });

  it("looks for changes on its own once started, until aborted", async () => {
    let age = { ageMs: 0, heard: true };
    const f = new StateFreshness({ source: { age: () => age }, maxAgeMs: 1_000, checkIntervalMs: 10 });
    const seen: boolean[] = [];
    f.onChange((x) => seen.push(x.fresh));
    const ac = new AbortController();
    f.start(ac.signal);
    age = { ageMs: 5_000, heard: true };
    await new Promise((r) => setTimeout(r, 50));
    ac.abort();
    age = { ageMs: 0, heard: true };
    await new Promise((r) => setTimeout(r, 50));
    expect(seen).toEqual([false]);
  });
});
