// Issue 30 through the whole system with a real Prometheus: Prometheus on loopback scrapes the five
// services (file-based discovery written from the launcher's ports) and evaluates the chart's own
// alert rules (rendered by helm, thresholds shortened through values). A drain blocked by a
// PodDisruptionBudget stalls the worker pool; LockstepUpdateStalled fires in Prometheus; the
// status-aggregator reads Prometheus's alerts API (ALERTS_URL) and `lockstep status` shows it as oc
// shows a firing alert. Before Prometheus is up, the status says monitoring cannot be read.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { onDemoRelease } from "@lockstep/cluster-sim";
import { freePort, renderChartRules, SERVICE_NAMES, startPrometheus, type RunningPrometheus } from "@lockstep/launcher";
import { describe, expect, it } from "vitest";
import { ensurePrometheus } from "../../scripts/prometheus.mjs";
import { toolOrSkip } from "../../scripts/tools.mjs";
import { describeCluster, startTestSystem, until } from "./system.js";

const ROOT = join(import.meta.dirname, "..", "..");
const CLI = join(ROOT, "packages", "cli", "dist", "main.js");

const SPEC = onDemoRelease({
  name: "alerts",
  pools: [{ name: "worker", size: 2, maxUnavailable: 1 }],
  // No disruption allowed: the first worker's drain never finishes, the pool stops moving.
  workloads: [{ name: "pinned", pool: "worker", replicas: 2, pdb: { maxUnavailable: 0 } }],
});

/** The chart's alert rules (the launcher renders them with helm), the stall threshold cut to seconds. */
function chartRules(): string {
  const helm = toolOrSkip("helm");
  if (helm.skip !== undefined) throw new Error(`no helm: ${helm.skip}`);
  return renderChartRules({ helm: helm.path, values: { updateStalled: { seconds: 20, for: "0s" } }, check: ["> 20"] });
}

describe("whole system: Lockstep's alerts in a real Prometheus, read back into the status", () => {
  it("fires LockstepUpdateStalled on a stalled pool and shows it as 'Alert is firing' in lockstep status", async () => {
    const { prometheus } = ensurePrometheus();
    const rules = chartRules();
    const promPort = await freePort();
    const promUrl = `http://127.0.0.1:${promPort}`;
    const t = await startTestSystem({
      spec: SPEC,
      serviceEnv: { "status-aggregator": { ALERTS_URL: `${promUrl}/api/v1/alerts`, ALERTS_INTERVAL: "1s", ALERTS_MAX_AGE: "5s" } },
    });
    let prom: RunningPrometheus | undefined;
    const status = (details = "none") =>
      spawnSync(process.execPath, [CLI, "status", "--details", details, "--server", t.env.system.grpcAddress("status-aggregator")], { encoding: "utf8" }).stdout;
    try {
      // Monitoring not up yet: said so, as a warning.
      await until("the unreachable-monitoring insight", () => status().includes("Cannot read firing alerts from the cluster's monitoring"), 60_000);

      // File-based discovery from the launcher's ports, labelled as the chart's ServiceMonitor would be.
      prom = await startPrometheus({ binary: prometheus, rules, system: t.env.system, port: promPort, interval: "1s" });
      await until("Prometheus scraping all five services", async () => {
        const res = await fetch(`${promUrl}/api/v1/query?query=${encodeURIComponent('count(up{namespace="lockstep"} == 1)')}`).catch(() => undefined);
        const body = res?.ok ? ((await res.json()) as { data: { result: Array<{ value: [number, string] }> } }) : undefined;
        return body?.data.result[0]?.value[1] === String(SERVICE_NAMES.length);
      }, 60_000);
      await until("the unreachable-monitoring insight gone", () => !status().includes("Cannot read firing alerts"), 30_000);
      expect(await prom.alerts()).toEqual([]);

      await t.env.sim.upgrade("4.15.14");
      const firing = await until(
        "LockstepUpdateStalled firing in Prometheus",
        async () => (await prom!.alerts()).find((a) => a.labels.alertname === "LockstepUpdateStalled" && a.state === "firing"),
        120_000,
      ).catch(async (err: Error) => {
        // Where the rule's inputs stood: the pool series in Prometheus and the aggregator's own /metrics.
        const q = async (query: string) => JSON.stringify(((await (await fetch(`${promUrl}/api/v1/query?query=${encodeURIComponent(query)}`)).json()) as { data?: { result?: unknown } }).data?.result);
        const series = await q('{__name__=~"lockstep_status_pool_.*"}');
        const scraped = (await (await fetch(`${t.env.system.httpUrl("status-aggregator")}/metrics`)).text()).split("\n").filter((l) => l.startsWith("lockstep_status_pool"));
        throw new Error(`${err.message}\n${describeCluster(t.env)}\nin Prometheus: ${series}\ntime(): ${await q("time()")}\n/metrics:\n${scraped.join("\n")}`);
      });
      expect(firing.labels).toMatchObject({ pool: "worker", severity: "warning", namespace: "lockstep" });

      // Read back by the status-aggregator: oc's wording (summary, "started firing during the update", the description).
      const text = await until("lockstep status showing the firing alert", () => {
        const out = status("health");
        return out.includes("Alert is firing: The update of pool worker is not moving.") ? out : undefined;
      }, 30_000);
      expect(text).toMatch(/Alert started firing during the update\. The alert description is: \d+ nodes of pool worker do not run the desired version yet/);
      expect(text).toContain("alerts.config.openshift.io: lockstep/LockstepUpdateStalled");
      expect(text).toMatch(/Level:\s+Warning/);
    } finally {
      await t.stop();
      await prom?.stop();
    }
  });
});
