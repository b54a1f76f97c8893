// events.k8s.io/v1 Events through client-node's EventsV1Api: what Lockstep's event recorder does
// (create, then a merge patch of `series` for repeats) and what the server refuses.
import * as k8s from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kubeConfigFor, type KubeSim } from "../../src/index.js";
import { apiError, conformanceServer, realServerBefore } from "../helpers.js";

let sim: KubeSim;
let events: k8s.EventsV1Api;
// An Event about a Node (cluster-scoped) lives in `default`, where client-go's recorders put it;
// servers before 1.21 take a new-style one (with an eventTime) only in `kube-system`.
const ns = realServerBefore(21) ? "kube-system" : "default";

beforeAll(async () => {
  sim = await conformanceServer();
  events = kubeConfigFor(sim, k8s.KubeConfig).makeApiClient(k8s.EventsV1Api);
});
afterAll(() => sim.stop());

const micro = (d: Date) => d.toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");

function event(name: string, extra: Record<string, unknown> = {}): k8s.EventsV1Event {
  return {
    apiVersion: "events.k8s.io/v1",
    kind: "Event",
    metadata: { name, namespace: ns },
    eventTime: micro(new Date()) as unknown as Date,
    reportingController: "lockstep.io/conformance",
    reportingInstance: "conformance-0",
    action: "Refuse",
    reason: "UpdateRefused",
    regarding: { apiVersion: "v1", kind: "Node", name: "worker-0" },
    note: "refused",
    type: "Warning",
    ...extra,
  } as k8s.EventsV1Event;
}

describe("events.k8s.io/v1 Event", () => {
  it("is created, folded by a merge patch of series, and listed by regarding.name", async () => {
    const name = `worker-0.conformance-${Date.now().toString(16)}`;
    await events.createNamespacedEvent({ namespace: ns, body: event(name) });
    const seen = micro(new Date());
    const patched = await events.patchNamespacedEvent(
      { name, namespace: ns, body: { series: { count: 3, lastObservedTime: seen } } },
      k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.MergePatch),
    );
    expect(patched.series?.count).toBe(3);
    const list = await events.listNamespacedEvent({ namespace: ns, fieldSelector: "regarding.name=worker-0" });
    expect(list.items.map((e) => e.metadata?.name)).toContain(name);
  });

  it("refuses a missing reportingController, a bad type and a series of count 1 (422)", async () => {
    const bad = event(`worker-0.bad-${Date.now().toString(16)}`, { reportingController: "", type: "Loud", series: { count: 1, lastObservedTime: micro(new Date()) } });
    const err = await apiError(events.createNamespacedEvent({ namespace: ns, body: bad }));
    expect(err.code).toBe(422);
    const fields = (err.body.details?.causes ?? []).map((c: { field: string }) => c.field);
    expect(fields).toEqual(expect.arrayContaining(["reportingController", "type", "series.count"]));
  });

  it("refuses an eventTime that is not a MicroTime (400)", async () => {
    const bad = event(`worker-0.time-${Date.now().toString(16)}`, { eventTime: "2026-01-01T00:00:00Z" });
    expect((await apiError(events.createNamespacedEvent({ namespace: ns, body: bad }))).code).toBe(400);
  });

  it("refuses an Event about a Node outside default and kube-system (422)", async () => {
    const name = `worker-0.ns-${Date.now().toString(16)}`;
    const stray = await apiError(events.createNamespacedEvent({ namespace: "kube-public", body: { ...event(name), metadata: { name, namespace: "kube-public" } } }));
    expect(stray.code).toBe(422);
    expect(stray.body.message).toContain(`involvedObject.namespace: Invalid value: "": does not match event.namespace`);
  });
});
