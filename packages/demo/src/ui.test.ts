// The live view fits every terminal from 80x24 up with the title and the current step on it, and its
// final screen shows every pool complete and no step running.
import type { NodeInsight, PoolSummary, UpdateStatus } from "@lockstep/contracts";
import { describe, expect, it } from "vitest";
import { plain, visibleWidth } from "./ansi.js";
import type { LoggedEvent } from "./events.js";
import type { StepResult } from "./story.js";
import { commonNameSuffix, elapsed, everyPoolComplete, finalScreenProblems, foldFlips, renderView, screen, TITLE, type ViewState } from "./ui.js";

const SUFFIX = ".us-east-2.compute.internal";
const STEPS = Array.from({ length: 15 }, (_, i) => `step number ${i + 1} of the scripted story, with a long name`);
const T0 = Date.parse("2026-11-25T18:00:00Z");

type Phase = "Updated" | "Rebooting" | "Draining" | "Pending" | "Paused";
const ASSESS: Record<Phase, string> = { Updated: "Completed", Rebooting: "Progressing", Draining: "Degraded", Pending: "Outdated", Paused: "Excluded" };

function node(name: string, pool: string, phase: Phase, version: string): NodeInsight {
  return {
    name: `${name}${SUFFIX}`,
    pool,
    scopeType: pool === "master" ? "ControlPlane" : "WorkerPool",
    version,
    estimatedToComplete: "",
    estimatedToCompletePresent: false,
    message: "",
    conditions: [],
    record: {
      isUpdated: phase === "Updated",
      isUpdating: phase === "Rebooting" || phase === "Draining",
      isUnavailable: false,
      isDegraded: phase === "Draining",
      isDraining: phase === "Draining",
      assessment: ASSESS[phase],
      phase,
      versionCell: version,
      estCell: "-",
      messageCell: phase === "Draining" ? `Drain is blocked by a PodDisruptionBudget that allows no disruption of pod demo/guarded on <node>` : "",
    },
  };
}

function pool(name: string, total: number, extra: Partial<PoolSummary> = {}): PoolSummary {
  return { name, scopeType: name === "master" ? "ControlPlane" : "WorkerPool", assessment: "Progressing", completion: 0, completionText: "", total, available: total, progressing: 0, outdated: 0, draining: 0, excluded: 0, degraded: 0, empty: false, paused: false, ...extra };
}

/** 3 masters, 6 workers, 2 infra: mid-update (phases given) or all on `version`. */
function status(phases: { master: Phase[]; worker: Phase[]; infra: Phase[] }, updating = true): UpdateStatus {
  const nodes: NodeInsight[] = [];
  let i = 0;
  for (const [p, list] of Object.entries(phases)) for (const ph of list) nodes.push(node(`ip-10-0-${p === "master" ? 0 : 1}-${i++}`, p, ph, ph === "Updated" ? "4.16.3" : "4.15.12"));
  return {
    now: new Date(T0),
    updating,
    controlPlane: updating ? { assessment: "Progressing", targetVersion: "4.16.3 (from 4.15.12)", updatingOperators: [], completion: 73, updated: 24, waiting: 0, total: 33, operatorsAvailable: 33, operatorsDegraded: 0, operatorsUnavailable: 0, duration: "-3m48s", completionAt: new Date(T0 + 3_600_000), estTimeToComplete: "1h7m", estDuration: "1h3m", multiArch: false, completed: false } : undefined,
    pools: [pool("master", 3), pool("infra", 2, { paused: phases.infra.includes("Paused"), assessment: "Excluded" }), pool("worker", 6)],
    nodes,
    health: [],
    healthFallback: false,
    revision: "1",
  };
}

const MID = status({ master: ["Updated", "Updated", "Updated"], worker: ["Pending", "Draining", "Rebooting", "Updated", "Updated", "Pending"], infra: ["Paused", "Paused"] });
const DONE = status({ master: ["Updated", "Updated", "Updated"], worker: Array(6).fill("Updated"), infra: ["Updated", "Updated"] }, false);

function event(sec: number, fact: string, text: string, message: unknown = {}): LoggedEvent {
  return { at: new Date(T0 + sec * 1000), subject: `lockstep.v1.evt.${fact}`, fact, text, message };
}
const EVENTS = Array.from({ length: 60 }, (_, i) => event(5 + i, "insight.changed", `node ip-10-0-1-${i % 6}${SUFFIX} (worker): Outdated/Pending → Progressing/Draining`, { node: `n${i}` }));
const result = (i: number, ok = true): StepResult => ({ name: STEPS[i]!, ok, detail: `detail of step ${i + 1}, which can be long enough to need cutting at eighty columns`, ms: 1000 });

function midState(extra: Partial<ViewState> = {}): ViewState {
  return {
    versions: { current: "4.15.12", target: "4.16.3" },
    timeScale: 60,
    steps: STEPS,
    results: Array.from({ length: 6 }, (_, i) => result(i)),
    current: 6,
    ended: false,
    waiting: "waiting 15 s for ip-10-0-1-1 degraded: ip-10-0-1-1 is Progressing/Draining",
    status: MID,
    events: EVENTS,
    startedMs: T0,
    stepStartedMs: T0 + 60_000,
    nowMs: T0 + 75_000,
    connect: [`other terminal: . .runs/demo-2026-11-25T18-00-00-000Z/lockstep.env && node scripts/lockstep.mjs status`, `CLI env: .runs/demo-2026-11-25T18-00-00-000Z/lockstep.env`],
    ...extra,
  };
}
const finalState = (extra: Partial<ViewState> = {}): ViewState =>
  midState({ results: STEPS.map((_, i) => result(i)), current: 14, ended: true, waiting: undefined, status: DONE, endedMs: T0 + 150_000, nowMs: T0 + 180_000, ...extra });

function expectFits(lines: string[], columns: number, rows: number): void {
  expect(lines.length).toBeLessThanOrEqual(rows);
  for (const l of lines) expect(visibleWidth(l), plain(l)).toBeLessThanOrEqual(columns);
  expect(plain(lines[0]!)).toMatch(new RegExp(`^${TITLE} — 4\\.15\\.12 → 4\\.16\\.3`));
}

describe("renderView", () => {
  const sizes = [
    [80, 24],
    [80, 25],
    [100, 30],
    [120, 40],
    [150, 50],
    [200, 60],
    [81, 37],
  ] as const;

  it.each(sizes)("fits %ix%i with the title, the current step and what it waits for", (columns, rows) => {
    const lines = renderView(midState(), columns, rows);
    expectFits(lines, columns, rows);
    const text = lines.map(plain);
    expect(text.some((l) => l.startsWith(` ▶ 7/15 ${STEPS[6]!.slice(0, 20)}`))).toBe(true);
    expect(text.some((l) => l.includes("waiting 15 s for ip-10-0-1-1 degraded"))).toBe(true);
    // The pools always; the blocked node, the least finished, whenever any node is shown.
    for (const p of ["master", "worker", "infra"]) expect(text.some((l) => l.startsWith(`   ${p} `) || l.startsWith(` ✔ ${p} `))).toBe(true);
    expect(text.some((l) => /^ {3}ip-10-0-1-4 +worker +Degraded +Draining +4\.15\.12 +Drain is blocked/.test(l))).toBe(true);
  });

  it("shows every line of a large terminal: all steps, all nodes, the CLI hint", () => {
    const text = renderView(midState(), 150, 50).map(plain);
    for (let i = 0; i < 15; i++) expect(text.some((l) => l.includes(STEPS[i]!))).toBe(true);
    expect(text.filter((l) => /^ {3}ip-10-0-\d-\d+ /.test(l))).toHaveLength(11);
    expect(text).toContain("other terminal: . .runs/demo-2026-11-25T18-00-00-000Z/lockstep.env && node scripts/lockstep.mjs status");
  });

  it("at 80x24 summarises the steps and nodes it cannot show, and keeps the shorter CLI hint", () => {
    const text = renderView(midState(), 80, 24).map(plain);
    expect(text.some((l) => /^ ✔ steps 1–\d happened$/.test(l) || /^ ✔ 6 /.test(l))).toBe(true);
    expect(text.some((l) => /… \d+ more nodes? \(/.test(l) || text.filter((x) => /^ {3}ip-/.test(x)).length === 11)).toBe(true);
    expect(text.at(-1)).toBe("CLI env: .runs/demo-2026-11-25T18-00-00-000Z/lockstep.env");
  });

  it("never shows a negative time or one the services computed", () => {
    // The event arrived "before" the start (a clock step back) and the services said -3m48s.
    const s = midState({ events: [event(-30, "skew.evaluated", "skew evaluated: upgradeable=false")], nowMs: T0 - 5_000, stepStartedMs: T0 });
    const text = renderView(s, 120, 40).map(plain).join("\n");
    expect(text).not.toMatch(/-\d+[hms]/);
    expect(text).not.toContain("1h7m");
    expect(text).not.toContain("-3m48s");
  });

  it("fits smaller terminals too, keeping the title and the current step first", () => {
    for (const [columns, rows] of [
      [40, 2],
      [60, 10],
      [79, 23],
    ] as const) {
      const lines = renderView(midState(), columns, rows);
      expectFits(lines, columns, rows);
      expect(lines.slice(1, 3).some((l) => /^ ▶ 7\/15 /.test(plain(l)))).toBe(true);
    }
  });

  it("marks an older status as not current when the last call failed", () => {
    const s = finalState({ statusError: "14 UNAVAILABLE: No connection established" });
    const lines = renderView(s, 120, 40);
    expect(plain(lines.find((l) => plain(l).startsWith("Cluster"))!)).toBe("Cluster not updating · every node on 4.16.3 · not current: 14 UNAVAILABLE: No connection established");
    expect(finalScreenProblems(s, renderView(s, 80, 24), 80, 24)).toEqual(["the status shown is not current (14 UNAVAILABLE: No connection established)"]);
  });

  it("says why there is no status", () => {
    const text = renderView(midState({ status: undefined, statusError: "14 UNAVAILABLE: No connection established" }), 80, 24).map(plain);
    expect(text).toContain("Cluster (status unavailable: 14 UNAVAILABLE: No connection established)");
  });
});

describe("the final screen", () => {
  it("at 80x24 shows every step happened, every pool complete and nothing running", () => {
    const s = finalState();
    const lines = renderView(s, 80, 24);
    expect(finalScreenProblems(s, lines, 80, 24)).toEqual([]);
    const text = lines.map(plain);
    expect(text[0]).toBe("Lockstep demo — 4.15.12 → 4.16.3 · cluster at 60x · 3m00s   (Ctrl-C stops)");
    expect(text[1]).toBe(" ✔ All 15 steps happened in 2m30s");
    for (const p of ["master", "worker", "infra"]) expect(text.some((l) => l.startsWith(` ✔ ${p} `) && l.includes("every node on 4.16.3"))).toBe(true);
    expect(text.join("\n")).not.toContain("▶");
  });

  it("is refused while a node is still rebooting or a step still runs", () => {
    const stale = finalState({ status: MID });
    const problems = finalScreenProblems(stale, renderView(stale, 80, 24), 80, 24);
    expect(problems).toContain("pool worker is not complete: 2/6 nodes on 4.16.3");
    expect(problems).toContain("pool infra is not complete: 0/2 nodes on 4.16.3");
    const running = finalState({ ended: false });
    expect(finalScreenProblems(running, renderView(running, 80, 24), 80, 24)).toEqual(["the story has not ended", "a step is still shown running"]);
  });

  it("is refused when it does not fit", () => {
    const s = finalState();
    const lines = renderView(s, 120, 40);
    expect(finalScreenProblems(s, lines, 80, 24).some((p) => /wide on a 80-column terminal|lines on a 24-row terminal/.test(p))).toBe(true);
  });

  it("names the failed step when the story stopped there", () => {
    const s = finalState({ results: [result(0), result(1, false)], status: MID });
    expect(plain(renderView(s, 80, 24)[1]!)).toMatch(/^ ✘ step 2\/15 failed: step number 2 .* — de/);
  });
});

describe("pieces", () => {
  it("screen() draws in place and never ends with a newline", () => {
    const out = screen(["a", "b", "c"]);
    expect(out).toBe("\x1b[Ha\x1b[K\r\nb\x1b[K\r\nc\x1b[K\x1b[J");
  });

  it("elapsed is never negative", () => {
    expect([elapsed(-5000), elapsed(45_000), elapsed(125_000), elapsed(3_720_000)]).toEqual(["0s", "45s", "2m05s", "1h02m"]);
  });

  it("finds the node names' common suffix", () => {
    expect(commonNameSuffix([`a${SUFFIX}`, `b${SUFFIX}`])).toBe(SUFFIX);
    expect(commonNameSuffix(["a.x", "b.y"])).toBe("");
    expect(commonNameSuffix(["x.internal", "internal"])).toBe("");
    expect(commonNameSuffix([`a${SUFFIX}`])).toBe("");
  });

  it("everyPoolComplete needs every node Updated on the target", () => {
    expect(everyPoolComplete(DONE, "4.16.3")).toBe(true);
    expect(everyPoolComplete(MID, "4.16.3")).toBe(false);
    expect(everyPoolComplete(DONE, "4.17.0")).toBe(false);
    expect(everyPoolComplete(undefined, "4.16.3")).toBe(false);
  });

  it("folds a phase that flips back and forth into the net change", () => {
    const change = (sec: number, node: string, from: string, to: string) => {
      const [pa, pp] = from.split("/");
      const [a, p] = to.split("/");
      return event(sec, "insight.changed", `${node}: ${from} → ${to}`, { node, previousAssessment: pa, previousPhase: pp, insight: { record: { assessment: a, phase: p } } });
    };
    const log = [
      change(1, "n1", "Outdated/Pending", "Progressing/Draining"),
      change(2, "n1", "Progressing/Draining", "Progressing/Updating"),
      event(2, "lease.granted", "lease granted: n2"),
      change(3, "n1", "Progressing/Updating", "Progressing/Draining"),
      change(4, "n1", "Progressing/Draining", "Progressing/Updating"),
      change(5, "n2", "Progressing/Draining", "Progressing/Updating"),
      change(6, "n1", "Progressing/Updating", "Progressing/Rebooting"),
    ];
    expect(foldFlips(log).map((e) => e.text)).toEqual([
      "n1: Outdated/Pending → Progressing/Draining",
      "lease granted: n2",
      "n1: Progressing/Draining → Progressing/Updating",
      "n2: Progressing/Draining → Progressing/Updating",
      "n1: Progressing/Updating → Progressing/Rebooting",
    ]);
  });
});
