// core/v1 Event and events.k8s.io/v1 Event are ONE resource on kube-apiserver (one store, converted
// on read): what one API writes the other reads, with the field names of the version asked for, and
// each version's own field selectors. This is what makes `kubectl get events` and `kubectl describe
// node` show what Lockstep's events.k8s.io/v1 recorder wrote.
import * as k8s from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kubeConfigFor, type KubeSim } from "../../src/index.js";
import { apiError, call, conformanceServer, RawWatch, realServerBefore, until } from "../helpers.js";

let sim: KubeSim;
let eventsV1: k8s.EventsV1Api;
let core: k8s.CoreV1Api;
// Events about Nodes live in `default`; servers before 1.21 take a new-style one (events.k8s.io/v1,
// with an eventTime) only in `kube-system`.
const ns = "default";
const v1Ns = realServerBefore(21) ? "kube-system" : "default";
// Unique per run: the suite also runs against a real kube-apiserver, whose Events outlive a run.
const run = Date.now().toString(16);
const v1Node = `evsim-v1-${run}`;
const coreNode = `evsim-core-${run}`;

beforeAll(async () => {
  sim = await conformanceServer();
  const kc = kubeConfigFor(sim, k8s.KubeConfig);
  eventsV1 = kc.makeApiClient(k8s.EventsV1Api);
  core = kc.makeApiClient(k8s.CoreV1Api);
});
afterAll(() => sim.stop());

const micro = (d: Date) => d.toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
const names = (list: { items: Array<{ metadata?: { name?: string } }> }) => list.items.map((e) => e.metadata?.name);

describe("Events: one resource under core/v1 and events.k8s.io/v1", () => {
  it("an events.k8s.io/v1 write reads back through core/v1 converted, found by involvedObject and reportingComponent", async () => {
    const name = `${v1Node}.a`;
    await eventsV1.createNamespacedEvent({
      namespace: v1Ns,
      body: {
        apiVersion: "events.k8s.io/v1",
        kind: "Event",
        metadata: { name, namespace: v1Ns },
        eventTime: micro(new Date()) as unknown as Date,
        reportingController: "lockstep.io/conformance",
        reportingInstance: "conformance-0",
        action: "Refuse",
        reason: "UpdateRefused",
        regarding: { apiVersion: "v1", kind: "Node", name: v1Node },
        note: "refused the update of the node",
        type: "Warning",
      } as k8s.EventsV1Event,
    });
    await eventsV1.patchNamespacedEvent(
      { name, namespace: v1Ns, body: { series: { count: 4, lastObservedTime: micro(new Date()) } } },
      k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.MergePatch),
    );

    const read = await core.readNamespacedEvent({ name, namespace: v1Ns });
    expect(read.apiVersion).toBe("v1");
    expect(read.involvedObject).toMatchObject({ kind: "Node", name: v1Node });
    expect(read.message).toBe("refused the update of the node");
    expect(read.reportingComponent).toBe("lockstep.io/conformance");
    expect(read.reportingInstance).toBe("conformance-0");
    expect(read.series?.count).toBe(4);
    expect(read.action).toBe("Refuse");

    // What `kubectl describe node` asks for.
    const byObject = await core.listNamespacedEvent({ namespace: v1Ns, fieldSelector: `involvedObject.kind=Node,involvedObject.name=${v1Node}` });
    expect(names(byObject)).toEqual([name]);
    const all = await core.listEventForAllNamespaces({ fieldSelector: `reportingComponent=lockstep.io/conformance,reason=UpdateRefused,type=Warning` });
    expect(names(all)).toContain(name);
    expect(names(await core.listNamespacedEvent({ namespace: v1Ns, fieldSelector: `involvedObject.name=${v1Node},type=Normal` }))).toEqual([]);
  });

  it("a core/v1 write reads back through events.k8s.io/v1 under the deprecated* names, found by regarding", async () => {
    const name = `${coreNode}.b`;
    const first = new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000);
    await core.createNamespacedEvent({
      namespace: ns,
      body: {
        metadata: { name, namespace: ns },
        involvedObject: { apiVersion: "v1", kind: "Node", name: coreNode },
        reason: "NodeNotReady",
        message: "node went not ready",
        source: { component: "evsim-kubelet", host: coreNode },
        count: 2,
        firstTimestamp: first,
        lastTimestamp: new Date(first.getTime() + 30_000),
        type: "Normal",
      },
    });

    const read = await eventsV1.readNamespacedEvent({ name, namespace: ns });
    expect(read.apiVersion).toBe("events.k8s.io/v1");
    expect(read.regarding).toMatchObject({ kind: "Node", name: coreNode });
    expect(read.note).toBe("node went not ready");
    expect(read.deprecatedCount).toBe(2);
    expect(read.deprecatedSource).toEqual({ component: "evsim-kubelet", host: coreNode });
    expect(new Date(read.deprecatedFirstTimestamp!).getTime()).toBe(first.getTime());
    // Raw JSON (client-node's typed decode would hide stray fields): only the events.k8s.io names.
    const raw = await call(sim, "GET", `/apis/events.k8s.io/v1/namespaces/${ns}/events/${name}`);
    expect(raw.status).toBe(200);
    expect(raw.json).toMatchObject({ apiVersion: "events.k8s.io/v1", note: "node went not ready", regarding: { name: coreNode } });
    expect(raw.json).not.toHaveProperty("message");
    expect(raw.json).not.toHaveProperty("involvedObject");
    expect(raw.json).not.toHaveProperty("source");

    const byRegarding = await eventsV1.listNamespacedEvent({ namespace: ns, fieldSelector: `regarding.kind=Node,regarding.name=${coreNode}` });
    expect(names(byRegarding)).toEqual([name]);
    // `source` is still selectable under events.k8s.io (upstream maps it onto the core field; 1.20 did not).
    if (!realServerBefore(21))
      expect(names(await eventsV1.listNamespacedEvent({ namespace: ns, fieldSelector: `source=evsim-kubelet,reason=NodeNotReady` }))).toEqual([name]);
    // The core listing holds the events.k8s.io-written one too: one store.
    const both = await core.listEventForAllNamespaces({ fieldSelector: `involvedObject.kind=Node` });
    expect(names(both)).toEqual(expect.arrayContaining([name, `${v1Node}.a`]));
  });

  it("each version refuses the other's field labels (400)", async () => {
    expect((await apiError(core.listNamespacedEvent({ namespace: ns, fieldSelector: `regarding.name=${coreNode}` }))).code).toBe(400);
    expect((await apiError(eventsV1.listNamespacedEvent({ namespace: ns, fieldSelector: `involvedObject.name=${coreNode}` }))).code).toBe(400);
  });

  it("a watch on events.k8s.io/v1 sees a core/v1 write, converted and selected by regarding.name", async () => {
    const node = `${coreNode}-w`;
    const list = await eventsV1.listNamespacedEvent({ namespace: ns });
    const watch = new RawWatch(
      sim,
      `/apis/events.k8s.io/v1/namespaces/${ns}/events?watch=true&resourceVersion=${list.metadata?.resourceVersion}&fieldSelector=${encodeURIComponent(`regarding.name=${node}`)}`,
    );
    try {
      await core.createNamespacedEvent({
        namespace: ns,
        body: { metadata: { name: `${node}.c`, namespace: ns }, involvedObject: { kind: "Node", name: node }, reason: "Seen", message: "watched", type: "Normal" },
      });
      await until(() => watch.events.length >= 1, "the core/v1 write on the events.k8s.io/v1 watch");
      const [ev] = watch.events;
      expect(ev!.type).toBe("ADDED");
      expect(ev!.object).toMatchObject({ apiVersion: "events.k8s.io/v1", note: "watched", regarding: { kind: "Node", name: node } });
    } finally {
      watch.close();
    }
  });
});
