// Issue 20 through the whole system: with the status-aggregator's Update Status API writer on and
// the chart's CRDs installed, the NodeProgressInsight objects follow the nodes through a rolling
// update (seen with `kubectl get --watch`), end Completed on the new version, and the object of a
// node that goes away is deleted.
import { spawn } from "node:child_process";
import { execFile } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { allUpdated, startTestSystem, until } from "./system.js";

const run = promisify(execFile);
const CRDS_DIR = fileURLToPath(new URL("../../deploy/helm/lockstep/crds/", import.meta.url));
const NODES = "nodeprogressinsights.update.openshift.io";

describe("whole system: the Update Status API", () => {
  it("follows the nodes through an update and cleans up after a deleted node", async () => {
    const t = await startTestSystem({
      serviceEnv: { "status-aggregator": { UPDATE_API_ENABLED: "true", UPDATE_API_RESYNC_MS: "10000", UPDATE_API_WRITES_PER_SECOND: "100" } },
    });
    const kubectl = (...args: string[]) => run("kubectl", ["--kubeconfig", t.env.kubeconfigPath, ...args]);
    let watch: ReturnType<typeof spawn> | undefined;
    try {
      // The chart's CRDs, installed after the services started (as a slow `helm install` might).
      await t.env.kube.load({ files: readdirSync(CRDS_DIR).filter((f) => f.endsWith(".update.openshift.io.yaml")).map((f) => join(CRDS_DIR, f)) });
      const names = async () => (await kubectl("get", NODES, "-o", "jsonpath={.items[*].metadata.name}")).stdout.split(" ").filter(Boolean);
      await until("an object per node", async () => (await names()).length === 7, 120_000);

      const lines: string[] = [];
      watch = spawn("kubectl", ["--kubeconfig", t.env.kubeconfigPath, "get", NODES, "--watch", "-o", 'jsonpath={.metadata.name} {.status.conditions[?(@.type=="Updating")].reason} {.status.version}{"\\n"}']);
      let buffer = "";
      watch.stdout!.on("data", (d: Buffer) => {
        buffer += d.toString();
        const parts = buffer.split("\n");
        buffer = parts.pop()!;
        lines.push(...parts.filter(Boolean));
      });
      await until("the watch's initial list", () => lines.length >= 7, 30_000);

      await t.env.sim.upgrade("4.15.14");
      await until("every node updated", () => allUpdated(t, 7, "4.15.14"), 300_000);
      await until("every object Completed on 4.15.14", async () => {
        const { stdout } = await kubectl("get", NODES, "-o", 'jsonpath={range .items[*]}{.status.conditions[?(@.type=="Updating")].reason} {.status.version}{"\\n"}{end}');
        return stdout.trim().split("\n").length === 7 && stdout.trim().split("\n").every((l) => l === "Completed 4.15.14");
      });
      await until("the watch to see the last change", () => {
        const last = new Map(lines.map((l) => [l.split(" ")[0]!, l]));
        return last.size === 7 && [...last.values()].every((l) => l.endsWith(" Completed 4.15.14"));
      }, 30_000);

      // Each node's object went through the update: seen Pending, in progress, then Completed.
      const seen = new Map<string, string[]>();
      for (const l of lines) {
        const [name, reason] = l.split(" ");
        const list = seen.get(name!) ?? [];
        if (list.at(-1) !== reason) list.push(reason!);
        seen.set(name!, list);
      }
      expect(seen.size).toBe(7);
      for (const [name, reasons] of seen) {
        expect(reasons.at(-1), name).toBe("Completed");
        expect(reasons.length, `${name}: ${reasons.join(" → ")}`).toBeGreaterThan(1);
      }
      const inProgress = [...seen.values()].filter((r) => r.some((x) => ["Draining", "Updating", "Rebooting"].includes(x)));
      expect(inProgress.length).toBeGreaterThan(0);

      // Lifecycle: a node that goes away loses its object.
      const gone = (await names()).find((n) => n.includes("worker")) ?? (await names())[0]!;
      await kubectl("delete", "node", gone);
      await until(`${gone}'s object deleted`, async () => !(await names()).includes(gone), 60_000);
      expect((await names()).length).toBe(6);
    } finally {
      watch?.kill();
      await t.stop();
    }
  }, 600_000);
});
