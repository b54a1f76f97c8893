// The lease webhook's review latency at 10,000 nodes: AdmissionReviews as the API server sends them
// (a desiredConfig change, an eviction, a cordon) posted over HTTPS keep-alive, one at a time and 8
// in flight, against a lease view of 10,000 nodes of which 1,000 are held. The view is a table here:
// the coordinator's own look-up (Coordinator.get on its lease index) is a map read per node.
import { Agent, request } from "node:https";
import { OperationType, type NodeLease } from "@lockstep/contracts";
import { DEFAULT_ACTS_FOR, DESIRED_CONFIG, policy, startLeaseWebhook } from "@lockstep/lease-coordinator";
import { silentLogger } from "@lockstep/runtime";
import { createTestPki } from "@lockstep/testing";
import { sized } from "./lib/quick.js";
import { summary, type BenchResult } from "./lib/stats.js";

const NODES = sized("BENCH_WEBHOOK_NODES", 10_000, 10_000);
const REVIEWS = sized("BENCH_WEBHOOK_REVIEWS", 5_000, 300);
const MCO = "system:serviceaccount:openshift-machine-config-operator";

export async function benchWebhook(): Promise<BenchResult[]> {
  const pki = createTestPki();
  const now = Date.now();
  const leases = new Map<string, NodeLease>();
  for (let i = 0; i < NODES; i += 10) {
    const node = `w${i}`;
    leases.set(node, {
      node, namespace: "lockstep-leases", leaseName: node, holder: i % 20 === 0 ? "alice" : `${MCO}:machine-config-controller/${node}`,
      operation: i % 20 === 0 ? OperationType.OPERATION_TYPE_MAINTENANCE : OperationType.OPERATION_TYPE_UPDATE, reason: "bench",
      acquireTime: new Date(now), renewTime: new Date(now), durationSeconds: 3600, transitions: 0, foreign: false, resourceVersion: "1",
      preemptedBy: "", preemptTime: undefined, preemptionRequestedBy: "",
    });
  }
  const pods = new Map<string, string>();
  for (let i = 0; i < NODES; i++) pods.set(`p${i}`, `w${i}`);
  const webhook = await startLeaseWebhook({
    tls: { cert: pki.pem("server.crt"), key: pki.pem("server.key") },
    port: 0,
    host: "127.0.0.1",
    policy: policy.DEFAULT_POLICY,
    holds: {
      holdOf: (node) => {
        const lease = leases.get(node);
        return lease && { lease, expiresInSeconds: 3600, adminHold: false };
      },
      auditBreakGlass: () => {},
    },
    lookups: { podNode: async (_ns, pod) => pods.get(pod), machineNode: async () => undefined },
    actsFor: DEFAULT_ACTS_FOR,
    breakGlassGroups: [],
    logger: silentLogger(),
  });
  const agent = new Agent({ keepAlive: true, maxSockets: 8, ca: pki.pem("ca.crt"), servername: "localhost" });
  const post = (body: string) =>
    new Promise<void>((resolve, reject) => {
      const req = request({ host: "127.0.0.1", port: webhook.port, path: "/validate", method: "POST", agent, headers: { "content-type": "application/json" } }, (res) => {
        res.resume();
        res.on("end", () => (res.statusCode === 200 ? resolve() : reject(new Error(`HTTP ${res.statusCode}`))));
      });
      req.on("error", reject);
      req.end(body);
    });
  const reviewOf = (i: number): string => {
    const node = `w${i % NODES}`;
    const user = { username: i % 2 ? `${MCO}:machine-config-controller` : "bob", groups: ["system:authenticated"] };
    const req =
      i % 3 === 0
        ? { resource: { group: "", version: "v1", resource: "nodes" }, name: node, operation: "UPDATE", object: { metadata: { name: node, annotations: { [DESIRED_CONFIG]: "rendered-b" } } }, oldObject: { metadata: { name: node, annotations: { [DESIRED_CONFIG]: "rendered-a" } } } }
        : i % 3 === 1
          ? { resource: { group: "", version: "v1", resource: "pods" }, subResource: "eviction", namespace: "apps", name: `p${i % NODES}`, operation: "CREATE", object: { apiVersion: "policy/v1", kind: "Eviction", metadata: { name: `p${i % NODES}`, namespace: "apps" } } }
          : { resource: { group: "", version: "v1", resource: "nodes" }, name: node, operation: "UPDATE", object: { metadata: { name: node }, spec: { unschedulable: true } }, oldObject: { metadata: { name: node }, spec: {} } };
    return JSON.stringify({ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", request: { uid: `u${i}`, userInfo: user, ...req } });
  };
  const bodies = Array.from({ length: REVIEWS }, (_, i) => reviewOf(i));
  try {
    for (let i = 0; i < Math.min(500, bodies.length); i++) await post(bodies[i]!); // warm-up
    const serial: number[] = [];
    for (const b of bodies) {
      const t = performance.now();
      await post(b);
      serial.push(performance.now() - t);
    }
    const parallel: number[] = [];
    let next = 0;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < bodies.length) {
          const b = bodies[next++]!;
          const t = performance.now();
          await post(b);
          parallel.push(performance.now() - t);
        }
      }),
    );
    const rate = bodies.length / ((performance.now() - t0) / 1000);
    const s = summary(serial);
    const p = summary(parallel);
    return [
      { bench: "webhook", metric: `review latency at ${NODES} nodes, one at a time, p50`, value: s.p50, unit: "ms" },
      { bench: "webhook", metric: `review latency at ${NODES} nodes, one at a time, p99`, value: s.p99, unit: "ms", target: "<= 5", ok: s.p99 <= 5 },
      { bench: "webhook", metric: `review latency at ${NODES} nodes, 8 in flight, p99`, value: p.p99, unit: "ms" },
      { bench: "webhook", metric: "reviews per second, 8 in flight", value: rate, unit: "/s" },
    ];
  } finally {
    agent.destroy();
    await webhook.stop();
    pki.remove();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { printResults } = await import("./lib/stats.js");
  printResults(await benchWebhook());
}
