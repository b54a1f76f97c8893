// Integration: NodeDisruptionPolicy objects created through client-node in kube-sim reach the state
// plane through the watcher, and the writer, a controller of the aggregator's state consumer,
// records on each whether it was accepted and why not; it writes nothing from a stale view.
import { CustomObjectsApi, type KubeConfig } from "@kubernetes/client-node";
import { closeBus, connectBus, ensureStateBucket } from "@lockstep/bus";
import { encode, Heartbeat, HEARTBEAT_KEY, NodeDisruptionPolicyState, stateKey, SyncMarker, SYNCED_KEY } from "@lockstep/contracts";
import { kubeConfigForUrl } from "@lockstep/kube/client-node";
import { startKubeSim } from "@lockstep/kube-sim";
import { createLogger, silentLogger } from "@lockstep/runtime";
import { TEST_WATCHER_OPTIONS, TestStack, waitFor } from "@lockstep/testing";
import { watcherRunnable } from "@lockstep/watcher";
import type { Logger } from "pino";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { Aggregator } from "../aggregator/aggregator.js";
import { aggregatorRunnable, type AggregatorController } from "../runnable.js";
import { policyStatusController } from "./writer.js";

let kc: KubeConfig;
const stack = new TestStack();
const REF = { group: "lockstep.io", version: "v1alpha1", plural: "nodedisruptionpolicies" };

// Each test on a cluster of its own: the first one's watcher and writer keep running.
beforeEach(async () => {
  const sim = stack.add(await startKubeSim({ crds: "openshift" }));
  kc = kubeConfigForUrl(sim.url);
});

afterAll(() => stack.close());

/** The aggregator's consumer on `natsUrl` with the writer as its controller. */
function runWriter(natsUrl: string, o: { logger?: Logger; stateMaxAgeMs?: number } = {}): Aggregator {
  const logger = o.logger ?? silentLogger();
  const aggregator = new Aggregator({ logger, debounceMs: 10 });
  const controllers: AggregatorController[] = [policyStatusController({ kc, logger })];
  stack.run(aggregatorRunnable({ aggregator, bus: { servers: natsUrl }, logger, watchRefreshMs: 60_000, stateMaxAgeMs: o.stateMaxAgeMs, controllers }));
  return aggregator;
}

const custom = () => kc.makeApiClient(CustomObjectsApi);
const conditions = async (name: string) => ((await custom().getClusterCustomObject({ ...REF, name })) as any).status?.conditions ?? [];
const policy = (name: string, spec: object) => custom().createClusterCustomObject({ ...REF, body: { apiVersion: "lockstep.io/v1alpha1", kind: "NodeDisruptionPolicy", metadata: { name }, spec } });
const RESTART_MYAPP = { files: [{ path: "/etc/myapp.conf", actions: [{ type: "Restart", restart: { serviceName: "myapp.service" } }] }] };

describe("NodeDisruptionPolicy status", () => {
  it("marks a valid policy Accepted and an invalid one not, with the reason", async () => {
    const nats = await stack.nats();
    stack.run(watcherRunnable({ kc, bus: { servers: nats.url }, logger: silentLogger(), ...TEST_WATCHER_OPTIONS }));
    runWriter(nats.url);
    await policy("myapp", RESTART_MYAPP);
    await policy("broken", { files: [{ path: "/etc/x.conf", actions: [{ type: "Restart" }] }] });
    const ok = await waitFor(async () => (await conditions("myapp")).find((c: any) => c.type === "Accepted"), { timeoutMs: 20_000 });
    expect(ok).toMatchObject({ status: "True", reason: "Valid" });
    const bad = await waitFor(async () => (await conditions("broken")).find((c: any) => c.type === "Accepted"), { timeoutMs: 20_000 });
    expect(bad).toMatchObject({ status: "False", reason: "InvalidSpec" });
    expect(bad.message).toMatch(/restart|serviceName/i);

    // Unchanged policies are not rewritten: the resourceVersion stays put.
    const rv = ((await custom().getClusterCustomObject({ ...REF, name: "myapp" })) as any).metadata.resourceVersion;
    await new Promise((r) => setTimeout(r, 1_000));
    expect(((await custom().getClusterCustomObject({ ...REF, name: "myapp" })) as any).metadata.resourceVersion).toBe(rv);
  });

  it("writes nothing while the view is stale, and the status once it is fresh again", async () => {
    // The test plays the watcher on a state plane of its own: its heartbeat decides the view's age.
    const nats = await stack.nats();
    const nc = await connectBus({ servers: nats.url, name: "test-watcher" });
    stack.defer(() => closeBus(nc));
    const kv = await ensureStateBucket(nc);
    let timer: NodeJS.Timeout | undefined;
    const beat = () => void kv.put(HEARTBEAT_KEY, encode(Heartbeat, Heartbeat.fromPartial({ time: new Date(), writer: "test" }))).catch(() => undefined);
    const startBeating = () => ((timer = setInterval(beat, 100)), beat());
    stack.defer(() => clearInterval(timer));
    startBeating();
    await kv.put(SYNCED_KEY, encode(SyncMarker, SyncMarker.fromPartial({})));
    const lines: Array<{ msg: string; controller?: string }> = [];
    const logger = createLogger({ service: "test", level: "debug", destination: { write: (s: string) => void lines.push(JSON.parse(s)) } });
    const aggregator = runWriter(nats.url, { logger, stateMaxAgeMs: 1_000 });
    await waitFor(() => aggregator.synced && aggregator.current()?.freshness?.stale === false, { what: "the aggregator synced and fresh" });

    clearInterval(timer);
    await waitFor(() => aggregator.current()?.freshness?.stale, { what: "the view stale" });
    await policy("late", RESTART_MYAPP);
    await kv.put(
      stateKey("nodeDisruptionPolicy", "late"),
      encode(NodeDisruptionPolicyState, NodeDisruptionPolicyState.fromPartial({ name: "late", generation: "1", files: [{ path: "/etc/myapp.conf", actions: [{ type: "Restart", serviceName: "myapp.service" }] }] })),
    );
    await waitFor(() => lines.find((l) => l.msg === "controller holds a key while the view is stale" && l.controller === "policy-status"), { what: "the write held" });
    expect(await conditions("late")).toEqual([]);

    startBeating();
    const accepted = await waitFor(async () => (await conditions("late")).find((c: any) => c.type === "Accepted"), { timeoutMs: 20_000, what: "the status written once fresh" });
    expect(accepted).toMatchObject({ status: "True", reason: "Valid" });
  });
});
