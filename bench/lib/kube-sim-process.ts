// kube-sim in its own process for benchmarks that must not share the driver's event loop:
// seeds BENCH_NODES nodes, writes a kubeconfig to argv[2], prints `ready <url>`, exits on SIGTERM.
import { startKubeSim } from "@lockstep/kube-sim";

const nodes = Number(process.env.BENCH_NODES ?? 1_000);
const sim = await startKubeSim({ crds: "openshift", historyLimit: 200_000 });
const nodeType = sim.store.registry.resolve("", "v1", "nodes")!;
for (let i = 0; i < nodes; i++) {
  sim.store.create(nodeType, undefined, {
    apiVersion: "v1",
    kind: "Node",
    metadata: { name: `node-${i}.bench.internal`, labels: { "node-role.kubernetes.io/worker": "" } },
    status: { conditions: [{ type: "Ready", status: "True", reason: "KubeletReady", message: "ok" }] },
  });
}
sim.store.ensureNamespace("bench-raw");
await sim.writeKubeconfig(process.argv[2]!);
process.stdout.write(`ready ${sim.url}\n`);
process.on("SIGTERM", () => void sim.stop().then(() => process.exit(0)));
