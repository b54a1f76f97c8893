// Integration: NodeDisruptionPolicy objects created through client-node in kube-sim reach the state
// plane through the watcher, and the writer records on each whether it was accepted and why not.
import { CustomObjectsApi, type KubeConfig } from "@kubernetes/client-node";
import { kubeConfigForUrl } from "@lockstep/kube/client-node";
import { startKubeSim, type KubeSim } from "@lockstep/kube-sim";
import { silentLogger } from "@lockstep/runtime";
import { TEST_WATCHER_OPTIONS, TestStack, waitFor, type NatsServer } from "@lockstep/testing";
import { watcherRunnable } from "@lockstep/watcher";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { policyStatusRunnable } from "./writer.js";

let sim: KubeSim;
let nats: NatsServer;
let kc: KubeConfig;
const stack = new TestStack();
const REF = { group: "lockstep.io", version: "v1alpha1", plural: "nodedisruptionpolicies" };

beforeAll(async () => {
  sim = stack.add(await startKubeSim({ crds: "openshift" }));
  nats = await stack.nats();
  kc = kubeConfigForUrl(sim.url);
  const logger = silentLogger();
  stack.run(watcherRunnable({ kc, bus: { servers: nats.url }, logger, ...TEST_WATCHER_OPTIONS }));
  stack.run(policyStatusRunnable({ kc, bus: { servers: nats.url }, logger }));
});

afterAll(() => stack.close());

const conditions = async (name: string) => ((await kc.makeApiClient(CustomObjectsApi).getClusterCustomObject({ ...REF, name })) as any).status?.conditions ?? [];

describe("NodeDisruptionPolicy status", () => {
  it("marks a valid policy Accepted and an invalid one not, with the reason", async () => {
    const custom = kc.makeApiClient(CustomObjectsApi);
    await custom.createClusterCustomObject({
      ...REF,
      body: { apiVersion: "lockstep.io/v1alpha1", kind: "NodeDisruptionPolicy", metadata: { name: "myapp" }, spec: { files: [{ path: "/etc/myapp.conf", actions: [{ type: "Restart", restart: { serviceName: "myapp.service" } }] }] } },
    });
    await custom.createClusterCustomObject({
      ...REF,
      body: { apiVersion: "lockstep.io/v1alpha1", kind: "NodeDisruptionPolicy", metadata: { name: "broken" }, spec: { files: [{ path: "/etc/x.conf", actions: [{ type: "Restart" }] }] } },
    });
    const ok = await waitFor(async () => (await conditions("myapp")).find((c: any) => c.type === "Accepted"), { timeoutMs: 20_000 });
    expect(ok).toMatchObject({ status: "True", reason: "Valid" });
    const bad = await waitFor(async () => (await conditions("broken")).find((c: any) => c.type === "Accepted"), { timeoutMs: 20_000 });
    expect(bad).toMatchObject({ status: "False", reason: "InvalidSpec" });
    expect(bad.message).toMatch(/restart|serviceName/i);

    // Unchanged policies are not rewritten: the resourceVersion stays put.
    const rv = ((await custom.getClusterCustomObject({ ...REF, name: "myapp" })) as any).metadata.resourceVersion;
    await new Promise((r) => setTimeout(r, 1_000));
    expect(((await custom.getClusterCustomObject({ ...REF, name: "myapp" })) as any).metadata.resourceVersion).toBe(rv);
  });
});
