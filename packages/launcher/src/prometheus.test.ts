// The shared Prometheus helpers against the real binaries (scripts/prometheus.mjs installs
// prometheus for the tests, scripts/tools.mjs helm): rules rendered from the chart with the values
// given, discovery from the replicas, a Prometheus that starts, answers and is gone after stop().
import { chmodSync, existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ensurePrometheus } from "../../../scripts/prometheus.mjs";
import { findTool, renderChartRules, scrapeTargets, startPrometheus } from "./prometheus.js";

const replicas = (ports: Record<string, number[]>) => ({ replicas: new Map(Object.entries(ports).map(([s, hs]) => [s, hs.map((http) => ({ http }))])) }) as any;

describe("Prometheus against a running system", () => {
  it("finds a tool by variable, then PATH, and says none when there is none", () => {
    const dir = mkdtempSync(join(tmpdir(), "lockstep-findtool-"));
    writeFileSync(join(dir, "sometool"), "#!/bin/sh\n");
    chmodSync(join(dir, "sometool"), 0o755);
    expect(findTool("sometool", undefined, { PATH: `/nonexistent:${dir}` })).toBe(join(dir, "sometool"));
    expect(findTool("sometool", undefined, { SOMETOOL_BIN: join(dir, "sometool"), PATH: "" })).toBe(join(dir, "sometool"));
    expect(findTool("sometool", undefined, { SOMETOOL_BIN: join(dir, "missing"), PATH: dir })).toBeUndefined();
    expect(findTool("no-such-tool-here", undefined, { PATH: dir })).toBeUndefined();
  });

  it("labels every replica's metrics port as the chart's ServiceMonitor would", () => {
    expect(scrapeTargets(replicas({ watcher: [9001], "status-aggregator": [9005, 9006] }))).toEqual([
      { targets: ["127.0.0.1:9001"], labels: { job: "lockstep-watcher", namespace: "lockstep" } },
      { targets: ["127.0.0.1:9005"], labels: { job: "lockstep-status-aggregator", namespace: "lockstep" } },
      { targets: ["127.0.0.1:9006"], labels: { job: "lockstep-status-aggregator", namespace: "lockstep" } },
    ]);
  });

  it("renders the chart's rules with the values given, and refuses values that did not arrive", () => {
    const helm = findTool("helm", undefined);
    expect(helm, "helm (scripts/tools.mjs puts it in .tools/)").toBeDefined();
    const rules = JSON.parse(renderChartRules({ helm: helm!, values: { updateStalled: { seconds: 37, for: "0s" } }, check: ["> 37"] }));
    const stalled = rules.groups[0].rules.find((r: any) => r.alert === "LockstepUpdateStalled");
    expect(stalled.for).toBe("0s");
    expect(stalled.expr).toContain('namespace="lockstep"}');
    expect(() => renderChartRules({ helm: helm!, values: { updateStalled: { seconds: 38, for: "0s" } }, check: ["> 37"] })).toThrow(/do not carry the values given \(missing > 37\)/);
    expect(() => renderChartRules({ helm: helm!, values: { updateStaled: { seconds: 7 } } })).toThrow(/helm template failed: [\s\S]*updateStaled is not allowed/);
  });

  it("starts, serves its alerts API, and is gone after stop()", async () => {
    const { prometheus } = ensurePrometheus();
    const prom = await startPrometheus({ binary: prometheus, rules: JSON.stringify({ groups: [] }), system: replicas({}), interval: "1s" });
    const pid = prom.pid!;
    expect(await prom.alerts()).toEqual([]);
    await prom.stop();
    expect(() => process.kill(pid, 0)).toThrow();
    await expect(fetch(`${prom.url}/-/ready`)).rejects.toThrow();
  });

  it("says why when the binary cannot run", async () => {
    await expect(startPrometheus({ binary: join(tmpdir(), "no-such-prometheus"), rules: "{}", system: replicas({}) })).rejects.toThrow(/prometheus exited before it was ready: .*ENOENT/);
    expect(existsSync(join(tmpdir(), "no-such-prometheus"))).toBe(false);
  });
});
