// The event recorder against kube-sim over real HTTP: a new fact is created as an events.k8s.io/v1
// Event, repeats are folded into its series by a patch, a follower writes nothing, and a failing API
// server never makes `record` throw.
import { startKubeSim, type KubeSim } from "@lockstep/kube-sim";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kubeAccessForUrl } from "./access.js";
import { EventRecorder } from "./event-recorder.js";
import { KubeHttp } from "./http.js";

let sim: KubeSim;
let http: KubeHttp;
beforeAll(async () => {
  sim = await startKubeSim({});
  http = new KubeHttp(kubeAccessForUrl(sim.url));
});
afterAll(async () => sim.stop());

const list = async (name: string) =>
  (await http.request<{ items: any[] }>("GET", "/apis/events.k8s.io/v1/namespaces/default/events", { query: { fieldSelector: `regarding.name=${name}` } })).items;

const refused = (node: string) => ({ regarding: { apiVersion: "v1", kind: "Node", name: node }, type: "Warning" as const, reason: "UpdateRefused", action: "Refuse", note: `update of ${node} refused: held by admin` });

describe("EventRecorder", () => {
  it("creates one Event and folds repeats into its series (count, lastObservedTime)", async () => {
    let now = Date.parse("2026-01-01T00:00:00Z");
    const rec = new EventRecorder({ http, service: "lease-coordinator", instance: "lc-0", now: () => now, fold: { seriesFlushMs: 1_000 } });
    for (let i = 0; i < 5; i++) rec.record(refused("rec-a"));
    await rec.settled();
    let items = await list("rec-a");
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ reportingController: "lockstep.io/lease-coordinator", reportingInstance: "lc-0", reason: "UpdateRefused", type: "Warning", regarding: { kind: "Node", name: "rec-a" } });
    expect(items[0].series).toBeUndefined();
    now += 1_000;
    rec.flushDue();
    await rec.settled();
    items = await list("rec-a");
    expect(items).toHaveLength(1);
    expect(items[0].series).toEqual({ count: 5, lastObservedTime: "2026-01-01T00:00:00.000000Z" });
    expect(rec.stats()).toMatchObject({ observed: 5, creates: 1, patches: 1, writes: 2, failed: 0 });
  });

  it("writes nothing while not the leader", async () => {
    let leading = false;
    const rec = new EventRecorder({ http, service: "skew-enforcer", instance: "se-1", isLeader: () => leading });
    rec.record(refused("rec-b"));
    await rec.settled();
    expect(await list("rec-b")).toEqual([]);
    leading = true;
    rec.record(refused("rec-b"));
    await rec.settled();
    expect(await list("rec-b")).toHaveLength(1);
    expect(rec.stats()).toMatchObject({ notLeader: 1, writes: 1 });
  });

  it("survives a refused write (counts it, logs it) and creates anew on the next observation", async () => {
    const rec = new EventRecorder({ http, service: "bootimage-updater", instance: "bu-0" });
    rec.record({ ...refused("rec-c"), reason: "" }); // 422: reason is required
    await rec.settled();
    expect(rec.stats().failed).toBe(1);
    rec.record(refused("rec-c"));
    await rec.settled();
    expect(await list("rec-c")).toHaveLength(1);
  });
});
