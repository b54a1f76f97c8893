// The "enforced" lease mode against kube-sim with a real validating webhook over HTTPS: the MCO asks
// no one, writes as its own ServiceAccounts, and a refused desiredConfig patch or eviction is retried
// as upstream retries it until the webhook lets it through.
import { createServer, type Server } from "node:https";
import { kubeConfigForUrl } from "@lockstep/kube/client-node";
import { startKubeSim, type KubeSim } from "@lockstep/kube-sim";
import { createTestPki, hasOpenssl, type TestPki } from "@lockstep/testing";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { planPool } from "./actors/pool-status.js";
import { A, MCD } from "./constants.js";
import { MCO_CONTROLLER_SA, serviceAccountUser } from "./mco-identity.js";
import { renderedName } from "./release.js";
import { startSimulation, type Simulation } from "./simulation.js";
import { parseClusterSpec } from "./spec.js";

const CONTROLLER = serviceAccountUser(MCO_CONTROLLER_SA);
const TARGET = "4.15.5";

/** What the test webhook refuses on which node: starting its update, evicting its pods. */
type Hold = "update" | "drain";

/** A validating webhook (AdmissionReview v1 over HTTPS) refusing, with a 403, what `holds` names. */
async function startWebhook(pki: TestPki, ks: () => KubeSim, holds: Map<string, Hold>): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer({ cert: pki.pem("server.crt"), key: pki.pem("server.key") }, (req, res) => {
    let body = "";
    req.on("data", (d: Buffer) => (body += d.toString()));
    req.on("end", async () => {
      const { request: r } = JSON.parse(body);
      let refusal: string | undefined;
      if (r.resource.resource === "nodes" && r.operation === "UPDATE") {
        const before = r.oldObject?.metadata?.annotations?.[A.desiredConfig];
        const after = r.object?.metadata?.annotations?.[A.desiredConfig];
        if (after !== before && holds.get(r.name) === "update") refusal = `node ${r.name} is leased to admin@example.com: ${r.userInfo.username} may not start an update of ${r.name}`;
      } else if (r.subResource === "eviction") {
        const pod = ks().store.getEntry(ks().store.registry.get("", "pods")!, r.namespace, r.name)?.obj as { spec?: { nodeName?: string } } | undefined;
        const node = pod?.spec?.nodeName ?? "";
        if (holds.get(node) === "drain") refusal = `node ${node} is leased to admin@example.com: ${r.userInfo.username} may not evict pod ${r.namespace}/${r.name}`;
      }
      const response = refusal ? { uid: r.uid, allowed: false, status: { code: 403, reason: "Forbidden", message: refusal } } : { uid: r.uid, allowed: true };
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", response }));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  return { url: `https://127.0.0.1:${port}/validate`, close: () => new Promise((r) => server.close(() => r())) };
}

async function register(ks: KubeSim, url: string, pki: TestPki): Promise<void> {
  const res = await fetch(`${ks.url}/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingWebhookConfiguration",
      metadata: { name: "test-leases" },
      webhooks: [
        {
          name: "leases.test.lockstep.io",
          clientConfig: { url, caBundle: pki.pem("ca.crt").toString("base64") },
          rules: [
            { apiGroups: [""], apiVersions: ["v1"], resources: ["nodes"], operations: ["UPDATE"] },
            { apiGroups: [""], apiVersions: ["v1"], resources: ["pods/eviction"], operations: ["CREATE"] },
          ],
          failurePolicy: "Fail",
          sideEffects: "None",
          admissionReviewVersions: ["v1"],
          timeoutSeconds: 5,
        },
      ],
    }),
  });
  expect(res.status).toBe(201);
}

const spec = (maxUnavailable: number | string) =>
  parseClusterSpec({ name: "enforced", version: "4.15.3", history: ["4.14.12"], masters: 1, pools: [{ name: "worker", size: 3, maxUnavailable }], seed: 3 });

describe.skipIf(!hasOpenssl())("the enforced lease mode against kube-sim and a validating webhook", () => {
  let pki: TestPki;
  let ks: KubeSim;
  let hook: { url: string; close(): Promise<void> };
  let sim: Simulation | undefined;
  const holds = new Map<string, Hold>();
  const warnings: Array<{ msg: string; obj: Record<string, unknown> }> = [];

  beforeAll(() => {
    pki = createTestPki();
  });
  afterAll(() => pki?.remove());
  beforeEach(async () => {
    holds.clear();
    warnings.length = 0;
    ks = await startKubeSim({ crds: "openshift" });
    hook = await startWebhook(pki, () => ks, holds);
    await register(ks, hook.url, pki);
  });
  afterEach(async () => {
    await sim?.stop();
    sim = undefined;
    await hook.close();
    await ks.stop();
  });

  const start = async (maxUnavailable: number | string) => {
    sim = await startSimulation({
      kc: kubeConfigForUrl(ks.url),
      spec: spec(maxUnavailable),
      timeScale: 1200,
      leases: "enforced",
      logger: { info: () => undefined, warn: (obj, msg) => warnings.push({ msg, obj: obj as Record<string, unknown> }) },
    });
    return sim;
  };
  const ann = (s: Simulation, n: string) => s.world.get("node", n)?.metadata.annotations ?? {};
  const workers = (s: Simulation) => (s.poolMembers().get("worker") ?? []).map((n) => n.metadata.name);
  /** The order the node controller rolls the workers out in (zone, then age), before any has a target. */
  const rolloutOrder = (s: Simulation) => planPool({ apiVersion: "v1", kind: "MachineConfigPool", metadata: { name: "worker" }, spec: { configuration: { name: "next" }, maxUnavailable: 3 } }, s.poolMembers().get("worker")!).candidates.map((n) => n.metadata.name);
  const target = () => renderedName("worker", TARGET);
  const updated = (s: Simulation, n: string) => ann(s, n)[A.currentConfig] === target() && ann(s, n)[A.state] === MCD.done;
  const denied = (node: string, what: "nodes" | "pods") => ks.admission.calls.filter((c) => c.outcome === "denied" && c.resource.resource === what && (what === "nodes" ? c.name === node : (c.message ?? "").includes(`node ${node} `)));
  const poolDone = (s: Simulation) => {
    const p = s.world.get("pool", "worker");
    return p?.status?.configuration?.name === target() && p?.status?.updatedMachineCount === 3;
  };

  it("a refused desiredConfig patch is retried with backoff and ends the pass, so a refused node first in the rollout order holds back the nodes after it; once allowed, the node updates and the pool completes", async () => {
    const s = await start(1);
    const [first, ...rest] = rolloutOrder(s);
    holds.set(first!, "update");
    await s.upgrade(TARGET);
    await s.waitFor(() => s.world.get("pool", "worker")?.spec?.configuration?.name === target(), 60_000, "the worker pool targeting the new config");
    await s.waitFor(() => denied(first!, "nodes").length >= 5, 30_000, "the update of the held node refused again and again");
    // 30 simulated minutes: the controller keeps trying the node first in order, never the others.
    await new Promise((r) => setTimeout(r, 1_500));
    for (const n of rest) expect(ann(s, n)[A.desiredConfig], n).not.toBe(target());
    expect(ann(s, first!)[A.desiredConfig]).not.toBe(target());
    const calls = denied(first!, "nodes");
    expect(calls.length).toBeGreaterThan(10);
    // As the machine-config-controller's ServiceAccount, refused with the webhook's 403 and message.
    expect(new Set(calls.map((c) => c.userInfo.username))).toEqual(new Set([CONTROLLER]));
    expect(calls[0]!.code).toBe(403);
    const w = warnings.find((x) => x.msg === "error syncing machineconfigpool; requeued with backoff");
    expect(w?.obj).toMatchObject({ pool: "worker", node: first });
    expect(String(w?.obj.err)).toBe(`setting desired ${target()} for node ${first}: HTTP 403: admission webhook "leases.test.lockstep.io" denied the request: node ${first} is leased to admin@example.com: ${CONTROLLER} may not start an update of ${first}`);
    // Backoff: requeues grow until dropped after 15, then a minute later it starts again.
    const requeues = warnings.filter((x) => x.msg.startsWith("error syncing")).map((x) => x.obj.requeues as number);
    expect(Math.max(...requeues)).toBeGreaterThanOrEqual(10);

    holds.delete(first!);
    await s.waitFor(() => workers(s).every((n) => updated(s, n)) && poolDone(s), 60_000, "every worker updated once the hold is gone");
  });

  it("with room for every candidate, the nodes the webhook allows are updated while the refused one waits", async () => {
    const s = await start(3);
    const held = rolloutOrder(s)[1]!;
    holds.set(held, "update");
    await s.upgrade(TARGET);
    await s.waitFor(() => workers(s).filter((n) => n !== held).every((n) => updated(s, n)), 60_000, "the other workers updated");
    expect(ann(s, held)[A.desiredConfig]).not.toBe(target());
    expect(denied(held, "nodes").length).toBeGreaterThan(0);
    holds.delete(held);
    await s.waitFor(() => updated(s, held) && poolDone(s), 60_000, "the held worker updated once allowed");
  });

  it("evictions refused by the webhook keep the drain from finishing (retried, the node cordoned and waiting); allowed, the drain and the update finish", async () => {
    const s = await start(1);
    const withPods = rolloutOrder(s).find((n) => (s.world.podsByNode.get(n)?.size ?? 0) > 0)!;
    holds.set(withPods, "drain");
    await s.upgrade(TARGET);
    await s.waitFor(() => denied(withPods, "pods").length >= 2, 60_000, "evictions from the held node refused (and retried)");
    const a = ann(s, withPods);
    expect(a[A.desiredConfig]).toBe(target());
    expect(a[A.state]).toBe(MCD.working);
    expect(a[A.desiredDrain]).toBe(`drain-${target()}`);
    expect(a[A.lastAppliedDrain]).not.toBe(a[A.desiredDrain]);
    expect(s.world.get("node", withPods)!.spec.unschedulable).toBe(true);
    expect(new Set(denied(withPods, "pods").map((c) => c.userInfo.username))).toEqual(new Set([CONTROLLER]));
    expect(warnings.some((x) => x.msg === "drain failed; retrying later" && x.obj.node === withPods && String(x.obj.err).includes("may not evict pod"))).toBe(true);
    holds.delete(withPods);
    await s.waitFor(() => workers(s).every((n) => updated(s, n)) && poolDone(s), 60_000, "every worker updated once evictions are allowed");
  });
});
