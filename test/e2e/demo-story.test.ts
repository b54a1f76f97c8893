// The demo's story, step by step, with every service a separate process, in the enforced lease
// mode: cluster-sim's MCO asks for no lease and the lease-coordinator's admission webhook, called by
// kube-sim, is what keeps it (and a kubectl drain) off the node under maintenance.
import { execFile } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { closeBus, connectBus } from "@lockstep/bus";
import { MCO_CONTROLLER_SA, serviceAccountUser } from "@lockstep/cluster-sim";
import { ADMIN, Clients, DEMO_SPEC, EventLog, runStory, startDemoAlerts, startEnvironment, STEPS, storyState } from "@lockstep/demo";
import { kubectlRunner } from "@lockstep/testing";
import { describe, expect, it } from "vitest";
import { ensurePrometheus } from "../../scripts/prometheus.mjs";

/** The project's own kubectl (scripts/tools.mjs puts it in .tools/). */
const KUBECTL = fileURLToPath(new URL("../../.tools/kubectl", import.meta.url));
const CLI = fileURLToPath(new URL("../../packages/cli/dist/main.js", import.meta.url));

/** `lockstep …` as a process; resolves with its stdout, rejects with its stderr when it fails. */
function lockstep(args: string[]): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(process.execPath, [CLI, ...args], { encoding: "utf8", timeout: 60_000 }, (err, stdout, stderr) =>
      err ? reject(new Error(`lockstep ${args.join(" ")}: ${err.message}\n${stderr}`)) : resolve(stdout),
    ),
  );
}

async function waitFor(check: () => boolean, timeoutMs: number, refresh?: () => Promise<void>): Promise<void> {
  const end = Date.now() + timeoutMs;
  await refresh?.();
  while (!check()) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 250));
    await refresh?.();
  }
}

describe("whole system: the demo's story", () => {
  it("happens step by step", async () => {
    const env = await startEnvironment({ runDir: mkdtempSync(join(tmpdir(), "lockstep-e2e-story-")), spec: DEMO_SPEC, timeScale: 120, leases: "enforced" });
    const clients = new Clients(env.system);
    const nc = await connectBus({ servers: env.natsUrl });
    const events = new EventLog();
    const abort = new AbortController();
    const feeding = events.start(nc, abort.signal);
    // Lockstep's own alerts in the event log, from a real Prometheus (installed for the tests).
    const { prometheus } = ensurePrometheus();
    const alerts = await startDemoAlerts({ system: env.system, events, env: { ...process.env, PROMETHEUS_BIN: prometheus } });
    try {
      expect(alerts.unavailable).toBeUndefined();
      const results = await runStory({ env, clients, events, versions: { current: "4.15.12", target: "4.16.3", next: "4.17.0" }, waitMs: 240_000, signal: abort.signal });
      for (const r of results) expect(r, `${r.name}: ${r.detail}`).toMatchObject({ ok: true });
      expect(results.map((r) => r.name)).toEqual(STEPS.map((s) => s.name));
      expect(results.length).toBeGreaterThanOrEqual(15);

      // Enforcement, not cooperation: nobody but the admin asked for a lease — the MCO's Update
      // leases are the machineconfig adapter's record of its daemons at work; the MCO's update of the
      // node under maintenance was refused (as its own ServiceAccount) until the lease was released,
      // then let through; the refusals are in the event log.
      const { maintenanceNode } = storyState(env);
      const adapted = (m: any) => String(m.lease?.holder).startsWith("adapter:machineconfig/");
      expect(events.count("lease.granted", (m) => m.lease?.holder !== ADMIN && !adapted(m))).toBe(0);
      expect(events.count("lease.granted", adapted)).toBeGreaterThan(0);
      const mcc = serviceAccountUser(MCO_CONTROLLER_SA);
      const updates = env.kube.admission.calls.filter(
        (c) => c.webhook === "updates.leases.lockstep.io" && c.name === maintenanceNode && c.userInfo.username === mcc && c.resource.resource === "nodes",
      );
      const firstAllowed = updates.findIndex((c) => c.outcome === "allowed");
      expect(updates.filter((c) => c.outcome === "denied").length).toBeGreaterThan(1);
      expect(firstAllowed).toBeGreaterThan(0);
      // Refused until then: denied, or a call that failed (a timeout on a loaded machine), which
      // the webhook's failurePolicy Fail refuses as well.
      const letThrough = updates.slice(0, firstAllowed).filter((c) => !(c.outcome === "denied" || (c.outcome === "error" && !c.ignored)));
      expect(letThrough.map((c) => `${c.outcome} ${c.message ?? ""}`)).toEqual([]);
      expect(events.count("admission.denied", (m) => m.name === maintenanceNode && m.userInfo?.username === mcc)).toBeGreaterThan(0);
      expect(events.count("admission.denied", (m) => m.subResource === "eviction")).toBeGreaterThan(0);

      // The drain blocked by the PDB made the worker pool's node Degraded: the chart's alert fired
      // (demo thresholds) and is in the event log, and stopped once the drain went through.
      const degradedWorker = (m: any) => m.labels?.alertname === "LockstepNodeDegraded" && m.labels?.pool === "worker";
      expect(events.events.filter((e) => e.fact === "alert.firing").map((e) => e.text)).toContain("alert firing: LockstepNodeDegraded — Nodes of pool worker are degraded.");
      expect(events.count("alert.firing", degradedWorker)).toBe(1);
      await waitFor(() => events.count("alert.resolved", degradedWorker) === 1, 30_000).catch(() => {});
      expect(events.count("alert.resolved", degradedWorker), "LockstepNodeDegraded resolved once the workers finished").toBe(1);

      // One completion fact for the target, however often the services re-evaluated.
      expect(events.count("update.completed", (m) => m.version === "4.16.3")).toBe(1);

      // Boot images (issue 9): every managed MachineSet patched exactly once to the new release's
      // image, the recorded cluster boot image version advanced, and the scale-up check allows them.
      const msType = env.kube.store.registry.resolve("machine.openshift.io", "v1beta1", "machinesets")!;
      const machineSets = env.kube.store.entries(msType).map((e) => e.obj as any);
      const bipType = env.kube.store.registry.resolve("lockstep.io", "v1alpha1", "bootimagepolicies")!;
      const recorded = () => (env.kube.store.getEntry(bipType, undefined, "cluster")?.obj as any)?.status?.bootImageSkewEnforcementStatus;
      await waitFor(() => recorded()?.automatic?.ocpVersion === "4.16.3", 60_000);
      for (const ms of machineSets) {
        expect(events.count("bootimage.updated", (m) => m.machineSet?.name === ms.metadata.name), ms.metadata.name).toBe(1);
        const scale = await clients.call(clients.skew, clients.skew.checkScaleUp, { namespace: ms.metadata.namespace, machineSet: ms.metadata.name });
        expect(scale, ms.metadata.name).toMatchObject({ allowed: true });
      }

      // Kubernetes Events (issue 31), through real kubectl: on the maintained Node one folded
      // Event for the MCO's refused updates naming the holder, a lease Event for the admin's
      // maintenance; upgrade blocked on the ClusterVersion; boot images on the MachineSets.
      // Plain `kubectl get events` reads core/v1: the recorder writes events.k8s.io/v1, and the two
      // are one resource (converted on read: regarding → involvedObject, note → message,
      // reportingController → reportingComponent), on kube-apiserver as in kube-sim.
      const kubectl = kubectlRunner(() => KUBECTL, () => env.kubeconfigPath);
      type KubeEvent = { reason: string; message: string; involvedObject: { kind: string; name: string; namespace?: string }; series?: { count: number }; reportingComponent: string };
      let kubeEvents: KubeEvent[] = [];
      const refusedOnNode = () => kubeEvents.find((e) => e.reason === "UpdateRefused" && e.involvedObject.name === maintenanceNode && e.message.includes(mcc) && (e.series?.count ?? 1) > 1);
      // Repeats reach an Event's series at the recorder's next flush (seconds): wait for it.
      await waitFor(() => refusedOnNode() !== undefined, 60_000, async () => {
        kubeEvents = JSON.parse(await kubectl.ok("get", "events", "--all-namespaces", "-o", "json")).items;
      }).catch(() => {});
      const refused = refusedOnNode();
      expect(refused, JSON.stringify(kubeEvents.filter((e) => e.involvedObject.name === maintenanceNode))).toBeDefined();
      expect(refused!.message).toContain(ADMIN);
      expect(refused!.reportingComponent).toBe("lockstep.io/lease-coordinator");
      expect(kubeEvents.filter((e) => e.reason === "UpdateRefused" && e.involvedObject.name === maintenanceNode && e.message === refused!.message)).toHaveLength(1);
      expect(kubeEvents.some((e) => e.reason === "LeaseGranted" && e.involvedObject.kind === "Node" && e.involvedObject.name === maintenanceNode && e.message.includes(ADMIN))).toBe(true);
      // `kubectl describe node` shows them too: it looks a Node's Events up by involvedObject.uid,
      // the Node's uid or (the kubelet's way, which the recorder follows) its name.
      expect(await kubectl.ok("describe", "node", maintenanceNode)).toMatch(/UpdateRefused/);
      expect(kubeEvents.some((e) => e.reason === "UpgradeBlocked" && e.involvedObject.kind === "ClusterVersion" && e.reportingComponent === "lockstep.io/skew-enforcer")).toBe(true);
      for (const ms of machineSets) {
        expect(
          kubeEvents.some((e) => e.reason === "BootImagePatched" && e.involvedObject.kind === "MachineSet" && e.involvedObject.name === ms.metadata.name && e.involvedObject.namespace === ms.metadata.namespace),
          ms.metadata.name,
        ).toBe(true);
      }

      // `lockstep events --since 10m` after the story: the story's events, in the order they
      // happened — the admin's maintenance lease granted, then released, then the update completed.
      const text = (await lockstep(["events", "--since", "10m", "--nats", env.natsUrl])).split("\n").filter((l) => l !== "");
      const at = (sentence: string) => text.findIndex((l) => l.includes(sentence));
      const story = [`lease granted: ${maintenanceNode} to ${ADMIN}`, `lease released: ${maintenanceNode} by ${ADMIN}`, "update completed: 4.16.3 on every node"];
      expect(story.map(at).every((i) => i >= 0), `${story.map((s) => `${at(s)} ${s}`).join("\n")}\n${text.length} lines`).toBe(true);
      expect(story.map(at)).toEqual(story.map(at).toSorted((a, b) => a - b));
      for (const ms of machineSets) expect(at(`boot image updated: MachineSet ${ms.metadata.name} `), ms.metadata.name).toBeGreaterThanOrEqual(0);
      // `-o json`: one JSON object per line, in stream order, with the same sentences.
      const json = (await lockstep(["events", "--since", "10m", "--nats", env.natsUrl, "-o", "json"])).split("\n").filter((l) => l !== "");
      const lines = json.map((l) => JSON.parse(l) as { seq: number; fact: string; text: string });
      expect(lines.map((l) => l.seq)).toEqual(lines.map((l) => l.seq).toSorted((a, b) => a - b));
      const jsonAt = (sentence: string) => lines.findIndex((l) => l.text.includes(sentence));
      expect(story.map(jsonAt).every((i) => i >= 0)).toBe(true);
      expect(story.map(jsonAt)).toEqual(story.map(jsonAt).toSorted((a, b) => a - b));
      expect(lines[jsonAt(story[0]!)]!.fact).toBe("lease.granted");
    } finally {
      await alerts.stop();
      abort.abort();
      await feeding.catch(() => {});
      await closeBus(nc);
      clients.close();
      await env.stop();
    }
  });
});
