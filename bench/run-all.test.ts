// Smoke run of `pnpm bench` in its quick mode: every benchmark runs end to end (small) and prints
// every figure the README and issue 19 rely on, each targeted figure with MET or MISSED. The values
// of a quick run mean nothing and are not checked: tests never time things.
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";

// One pattern per figure line; a bench that stops printing one of these fails here.
const FIGURES: Record<string, RegExp[]> = {
  system: [
    /^system \d+ nodes\s+1x \(a real update's pace\): node changes carried, \d+ s from the worker pool's start/m,
    /^system \d+ nodes\s+1x \(a real update's pace\): API write→gRPC insight p50 \(\d+ probes\)/m,
    /^system \d+ nodes\s+1x \(a real update's pace\): API write→gRPC insight p99\s+\S+\s+ms\s+<= 100\s+(MET|MISSED)$/m,
    /^system \d+ nodes\s+10x: API write→gRPC insight p50/m,
    /^system \d+ nodes\s+10x: API write→gRPC insight p99\s+\S+\s+ms\s+<= 100\s+(MET|MISSED)$/m,
    /^system \d+ nodes\s+60x \(stress\): API write→gRPC insight p99\s+\S+\s+ms$/m,
    ...["watcher", "lease-coordinator", "skew-enforcer", "bootimage-updater", "status-aggregator"].map(
      (svc) => new RegExp(`^system \\d+ nodes\\s+1x \\(a real update's pace\\):\\s+\\.\\.\\. ${svc}: event-loop delay p99 / max; GC pauses in the window`, "m"),
    ),
    /^system \d+ nodes\s+1x \(a real update's pace\):\s+\.\.\. API watch event→gRPC insight \(Lockstep's part: watcher, NATS, aggregator\) p50 \/ p99/m,
    /^system \d+ nodes\s+1x \(a real update's pace\):\s+\.\.\.\s+of it: API write→event in another API watch of the node \(the API server's part\) p50 \/ p99/m,
    /^system \d+ nodes\s+1x \(a real update's pace\):\s+\.\.\.\s+of it: that API watch event→state-plane write \(watcher, NATS publish\) p50 \/ p99/m,
    /^system \d+ nodes\s+1x \(a real update's pace\):\s+\.\.\. probes never seen within 5 s/m,
    /^system \d+ nodes\s+1x \(a real update's pace\):\s+\.\.\. cores busy in the window: the five services\s+\S+\s+cores \(watcher /m,
    /^system \d+ nodes\s+10x:\s+\.\.\. cores busy in the window: the harness\s+\S+\s+cores \(kube-sim /m,
    /^system \d+ nodes\s+1x \(a real update's pace\):\s+\.\.\. prober's own event-loop delay p99 \(bench process with cluster-sim: \d+ ms\)/m,
    /^system \d+ nodes\s+nats-server messages in \/ out per node change at 1x/m,
    ...["watcher", "status-aggregator", "kube-sim", "nats-server", "bench process \\(cluster-sim, bus tap\\)"].map(
      (p) => new RegExp(`^system \\d+ nodes\\s+CPU at rest \\(all nodes served, no update running; \\S+ node changes\\/s\\): ${p}`, "m"),
    ),
    /^system \d+ nodes\s+capacity: highest node-change rate with insight p99 <= 100 ms/m,
    /^system \d+ nodes\s+headroom: capacity ÷ the 1x rate/m,
    ...["watcher", "lease-coordinator", "skew-enforcer", "bootimage-updater", "status-aggregator", "kube-sim", "nats-server", "prober", "bench process \\(cluster-sim, bus tap\\)", "everything"].map(
      (p) => new RegExp(`^system \\d+ nodes\\s+CPU per 1,000 node changes at \\d+x: ${p}`, "m"),
    ),
    /^system \d+ nodes\s+system bus rate: state-plane puts while loading, best 1 s/m,
    /^system \d+ nodes\s+ceiling: raw KV puts of the same values \(\d+ B\), 5 consumer processes decoding each/m,
    /^system \d+ nodes\s+system bus rate \(best 1 s while loading\) ÷ ceiling\s+\S+\s+ratio\s+>= 0.5\s+(MET|MISSED)$/m,
  ],
  lease: [
    ...[1, 8, 32].flatMap((w) => [
      new RegExp(`^lease\\s+${w} in flight: raw create latency p50 / p99`, "m"),
      new RegExp(`^lease\\s+${w} in flight: grant latency p99`, "m"),
      new RegExp(`^lease\\s+${w} in flight: coordinator CPU per grant \\(both replicas\\) / kube-sim CPU per raw create`, "m"),
      new RegExp(`^lease\\s+${w} in flight: CPU ms per grant, all processes`, "m"),
    ]),
    /^lease\s+8 in flight: grant latency p99\s+\S+\s+ms\s+<= 50\s+(MET|MISSED)$/m,
    /^lease\s+all rounds: grants per coordinator CPU-second/m,
    /^lease\s+all rounds: coordinator CPU per grant \(both replicas\) ÷ kube-sim CPU per raw create\s+\S+\s+ratio\s+<= 2\s+(MET|MISSED)$/m,
    /^lease\s+\s+double grants\s+\S+\s+nodes\s+= 0\s+(MET|MISSED)$/m,
  ],
  webhook: [/^webhook\s+review latency at 10000 nodes, one at a time, p50/m, /^webhook\s+review latency at 10000 nodes, one at a time, p99\s+\S+\s+ms\s+<= 5\s+(MET|MISSED)$/m],
  "kube-sim": [/^kube-sim\s/m],
  watcher: [/^watcher\s/m],
  "status-aggregator": [/^status-aggregator\s/m],
  "cluster-sim": [/^cluster-sim scale-10k\s/m],
  "service-idle": [/^service idle\s/m],
  failover: [
    ...["watcher", "lease-coordinator", "skew-enforcer", "bootimage-updater", "status-aggregator"].flatMap((svc) => [
      new RegExp(`^failover\\s+${svc}: SIGKILL of the leader → the other replica leads, max \\(\\d+ kills\\)\\s+\\S+\\s+s\\s+<= 15\\s+(MET|MISSED)$`, "m"),
      new RegExp(`^failover\\s+${svc}: SIGTERM of the leader → the other replica leads, max \\(\\d+ stops\\)\\s+\\S+\\s+s\\s+<= 2\\s+(MET|MISSED)$`, "m"),
    ]),
    /^failover\s+watcher: SIGKILL of the leader → a consumer receives the new leader's heartbeat, max/m,
  ],
  "cli-startup": [
    /^cli-startup\s+--help: wall p50 \(\d+ runs\)\s+\S+\s+ms\s+<= 200\s+(MET|MISSED)$/m,
    ...["--help", "status --from-dir \\(offline\\)", "status \\(live, one RenderStatus\\)", "--help via scripts/lockstep.mjs"].flatMap((c) => [
      new RegExp(`^cli-startup\\s+${c}: wall p50`, "m"),
      new RegExp(`^cli-startup\\s+${c}: peak RSS p50`, "m"),
    ]),
  ],
};

describe("pnpm bench, quick mode", () => {
  it("runs every benchmark end to end and prints every figure with its target", { timeout: 480_000 }, () => {
    const run = spawnSync(process.execPath, ["--import", "tsx", "run-all.ts"], { cwd: import.meta.dirname, env: { ...process.env, BENCH_QUICK: "1" }, encoding: "utf8", timeout: 470_000, maxBuffer: 64 << 20 });
    const out = run.stdout;
    // How the run ended, with its last lines: a clean-clone CI run once ended after the table with no summary line.
    const ending = `status ${run.status}, signal ${run.signal}, error ${run.error?.message}; stdout ends: ${out.slice(-600)}\nstderr: ${run.stderr}`;
    expect(out, ending).toMatch(/^targets: \d+ MET, \d+ MISSED/m);
    expect(out).not.toMatch(/failed: /);
    expect(run.status).toBe(0);
    const missing = Object.entries(FIGURES).flatMap(([bench, patterns]) => patterns.filter((p) => !p.test(out)).map((p) => `${bench}: ${p.source}`));
    expect(missing).toEqual([]);
  });
});
