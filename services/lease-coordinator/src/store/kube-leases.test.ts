// KubeLeaseApi against a real kube-sim (with a bearer token, so auth from the KubeConfig must reach
// every request): CAS writes, reads, and how each kind of failure is classified.
import { kubeConfigForUrl } from "@lockstep/kube/client-node";
import { startKubeSim, type KubeSim } from "@lockstep/kube-sim";
import { freePort } from "@lockstep/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { encodeLease, type LeaseWrite } from "@lockstep/lease-policy";
import { KubeLeaseApi } from "./kube-leases.js";

const NS = "lockstep-leases";
let sim: KubeSim;
let api: KubeLeaseApi;

function write(name: string, holder: string, expectedResourceVersion: string | null, durationSeconds = 60): LeaseWrite {
  const now = new Date("2026-01-02T03:04:05.678Z");
  const body = encodeLease({ namespace: NS, name, kind: "node", node: name, nodeUid: "", holder, operation: "Update", reason: "test", durationSeconds, acquireTime: now, renewTime: now, transitions: 0 });
  return { namespace: NS, name, expectedResourceVersion, body };
}

beforeAll(async () => {
  sim = await startKubeSim({ token: "s3cret" });
  api = new KubeLeaseApi(kubeConfigForUrl(sim.url, "s3cret"));
  expect(await api.ensureNamespace(NS)).toEqual({ ok: true });
});

afterEach(() => sim.faults.clear());

afterAll(async () => {
  await sim?.stop();
});

describe("KubeLeaseApi", () => {
  it("creates, replaces with the expected resourceVersion, and reads back what it wrote", async () => {
    const created = await api.write(write("n1", "mcd/n1", null));
    if (!created.ok) throw new Error(created.reason);
    expect(created.state).toMatchObject({ namespace: NS, name: "n1", holderIdentity: "mcd/n1", leaseDurationSeconds: 60 });
    // MicroTime went out (and comes back) with six fractional digits.
    expect(created.state.rawRenewTime).toBe("2026-01-02T03:04:05.678000Z");
    expect(created.state.renewTime?.toISOString()).toBe("2026-01-02T03:04:05.678Z");
    expect(created.state.labels["lockstep.io/lease-kind"]).toBe("node");

    const replaced = await api.write(write("n1", "kured", created.state.resourceVersion));
    if (!replaced.ok) throw new Error(replaced.reason);
    expect(replaced.state.holderIdentity).toBe("kured");
    expect(await api.read(NS, "n1")).toMatchObject({ holderIdentity: "kured", resourceVersion: replaced.state.resourceVersion });
  });

  it("a lost race is a conflict: create of an existing Lease, a replace with a stale resourceVersion", async () => {
    const first = await api.write(write("n2", "a", null));
    if (!first.ok) throw new Error(first.reason);
    expect(await api.write(write("n2", "b", null))).toEqual({ ok: false, kind: "conflict", reason: "HTTP 409 AlreadyExists" });
    const second = await api.write(write("n2", "b", first.state.resourceVersion));
    expect(second.ok).toBe(true);
    expect(await api.write(write("n2", "c", first.state.resourceVersion))).toEqual({ ok: false, kind: "conflict", reason: "HTTP 409 Conflict" });
  });

  it("a read of an absent Lease is null", async () => {
    expect(await api.read(NS, "never")).toBeNull();
  });

  it("a body the API server refuses is rejected; 429 and 5xx are transient", async () => {
    const bad = write("n3", "a", null, 60);
    (bad.body.metadata as { name: string }).name = "Not_A_DNS_Name";
    const rejected = await api.write({ ...bad, name: "Not_A_DNS_Name" });
    expect(rejected).toMatchObject({ ok: false, kind: "rejected" });

    sim.faults.set({ errors: [{ code: 429, probability: 1, verb: "create" }] });
    expect(await api.write(write("n4", "a", null))).toEqual({ ok: false, kind: "transient", reason: "HTTP 429 TooManyRequests" });
    sim.faults.set({ errors: [{ code: 500, probability: 1 }] });
    expect(await api.write(write("n4", "a", null))).toMatchObject({ ok: false, kind: "transient", reason: expect.stringMatching(/^HTTP 500/) });
    expect(await api.read(NS, "n4")).toEqual({ error: expect.stringMatching(/^HTTP 500/) });
  });

  it("a wrong token is rejected (401), not retried", async () => {
    const wrong = new KubeLeaseApi(kubeConfigForUrl(sim.url, "wrong"));
    expect(await wrong.write(write("n5", "a", null))).toEqual({ ok: false, kind: "rejected", reason: "HTTP 401 Unauthorized" });
  });

  it("no API server is transient", async () => {
    const nobody = new KubeLeaseApi(kubeConfigForUrl(`http://127.0.0.1:${await freePort()}`));
    expect(await nobody.write(write("n6", "a", null))).toMatchObject({ ok: false, kind: "transient", reason: expect.stringMatching(/ECONNREFUSED/) });
    expect(await nobody.read(NS, "n6")).toEqual({ error: expect.stringMatching(/ECONNREFUSED/) });
  });
});
