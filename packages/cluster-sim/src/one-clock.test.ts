// One clock: a run at a high time scale against kube-sim writes no stamp after the wall clock, and the
// status rules (@lockstep/insights, evaluated at the wall-clock now as the status-aggregator does)
// show no negative duration at any point of the update.
import { evaluate, inputsFromDocuments, render, type Evaluation } from "@lockstep/insights";
import { kubeConfigForUrl } from "@lockstep/kube/client-node";
import { startKubeSim } from "@lockstep/kube-sim";
import { expect, it } from "vitest";
import { renderedName } from "./release.js";
import { parseClusterSpec } from "./spec.js";
import { startSimulation } from "./simulation.js";
import { snapshotDocuments, type ClusterSnapshot } from "./snapshot.js";

const STAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/;

/** Every RFC 3339 string in the objects (conditions, history, annotations, metadata), with its path. */
function stamps(v: unknown, path: string, out: Array<[string, string]>): void {
  if (typeof v === "string") {
    if (STAMP.test(v)) out.push([path, v]);
  } else if (Array.isArray(v)) v.forEach((x, i) => stamps(x, `${path}[${i}]`, out));
  else if (v && typeof v === "object") for (const [k, x] of Object.entries(v)) stamps(x, `${path}.${k}`, out);
}

function evaluateAt(snap: ClusterSnapshot, nowMs: number): Evaluation {
  const inputs = inputsFromDocuments(snapshotDocuments(snap));
  const now = BigInt(nowMs) * 1_000_000n;
  return evaluate(inputs, { now, wallClock: now });
}

/** The durations the status output shows, each measured against the evaluation's now. */
function durations(ev: Evaluation): Array<[string, bigint]> {
  const cp = ev.controlPlane;
  const out: Array<[string, bigint]> = [["control plane duration", cp.duration]];
  for (const o of cp.operators.updating) out.push([`operator ${o.name} since`, ev.now - o.since]);
  for (const i of ev.health.insights) out.push([`insight ${i.summary} since`, ev.now - i.startedAt]);
  return out;
}

it("a 600x run stamps nothing after the wall clock, and the status rules show no negative duration", async () => {
  const ks = await startKubeSim({ crds: "openshift" });
  const spec = parseClusterSpec({ version: "4.15.3", history: ["4.15.1", "4.14.9"], masters: 3, pools: [{ name: "worker", size: 3 }] });
  const sim = await startSimulation({ kc: kubeConfigForUrl(ks.url), spec, timeScale: 600 });
  const future: string[] = [];
  const negative: string[] = [];
  const rendered: string[] = [];
  let checks = 0;
  let lastErr: unknown;
  const check = () => {
    try {
      const snap = sim.snapshot();
      const found: Array<[string, string]> = [];
      for (const [kind, objs] of Object.entries(snap)) for (const o of objs as Array<{ metadata: { name: string } }>) stamps(o, `${kind}/${o.metadata.name}`, found);
      const wall = Date.now();
      for (const [path, v] of found) if (Date.parse(v) > wall) future.push(`${path}=${v} (wall ${new Date(wall).toISOString()})`);
      const ev = evaluateAt(snap, wall);
      for (const [what, d] of durations(ev)) if (d < 0n) negative.push(`${what}: ${d / 1_000_000n} ms`);
      if (!ev.notUpdating) rendered.push(render(ev, "all"));
      checks++;
    } catch (err) {
      lastErr = err;
    }
  };
  sim.world.onChange(check);
  const target = "4.15.5";
  try {
    await sim.upgrade(target);
    const done = () => {
      const cv = sim.world.get("cv", "version") as { status?: { history?: Array<{ state?: string; version?: string }> } } | undefined;
      const head = cv?.status?.history?.[0];
      const worker = sim.world.get("pool", "worker");
      return head?.version === target && head.state === "Completed" && worker?.status?.configuration?.name === renderedName("worker", target);
    };
    await sim.waitFor(done, 60_000, "the update to complete").catch((err) => {
      throw new Error(`${(err as Error).message}; last evaluation error: ${String(lastErr)}`);
    });
    check();
  } finally {
    await sim.stop();
    await ks.stop();
  }
  expect(lastErr).toBeUndefined();
  expect(checks).toBeGreaterThan(20);
  expect(future).toEqual([]);
  expect(negative).toEqual([]);
  // The text `lockstep status` prints: no "-3m52s"-style duration anywhere, while updating.
  expect(rendered.length).toBeGreaterThan(5);
  for (const text of rendered) expect(text).not.toMatch(/(^|[\s(])-\d+(\.\d+)?(h|m|s)\b/m);
  // The generated history lies on the same clock: the last completed update took 72 simulated minutes.
  const cv = sim.world.get("cv", "version") as { status: { history: Array<{ startedTime: string; completionTime: string }> } };
  const prior = cv.status.history[1]!;
  const took = (Date.parse(prior.completionTime) - Date.parse(prior.startedTime)) / 1000;
  expect(Math.abs(took - (72 * 60) / 600)).toBeLessThanOrEqual(1); // whole-second stamps
}, 90_000);
