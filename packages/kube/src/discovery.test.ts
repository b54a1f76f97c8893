// Version choice through discovery: the pure choice, kube-sim (current Kubernetes: policy/v1), and a
// recording HTTP server answering discovery as kube-apiserver 1.20 does (policy/v1beta1 only; its
// documents as that server sends them), which also counts how often discovery is asked.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { startKubeSim, type KubeSim } from "@lockstep/kube-sim";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kubeAccessForUrl } from "./access.js";
import { ApiDiscovery, chooseServedVersion, evictionApiVersion, transientDiscoveryError } from "./discovery.js";
import { KubeApiError } from "./errors.js";
import { Resources } from "./resources.js";

// kube-apiserver 1.20's GET /apis/policy and the pods entries of GET /api/v1.
const POLICY_1_20 = {
  kind: "APIGroup",
  apiVersion: "v1",
  name: "policy",
  versions: [{ groupVersion: "policy/v1beta1", version: "v1beta1" }],
  preferredVersion: { groupVersion: "policy/v1beta1", version: "v1beta1" },
};
const CORE_1_20 = {
  kind: "APIResourceList",
  groupVersion: "v1",
  resources: [
    { name: "pods", singularName: "", namespaced: true, kind: "Pod", verbs: ["create", "delete", "get", "list", "watch"] },
    { name: "pods/eviction", singularName: "", namespaced: true, group: "policy", version: "v1beta1", kind: "Eviction", verbs: ["create"] },
  ],
};

describe("chooseServedVersion", () => {
  const pdb = Resources.podDisruptionBudget;
  it("keeps the current version when served, even beside older ones", () => {
    expect(chooseServedVersion(pdb, { versions: [{ version: "v1" }, { version: "v1beta1" }] })).toBe(pdb);
  });
  it("falls back to the newest older version served", () => {
    expect(chooseServedVersion(pdb, POLICY_1_20)).toEqual({ ...pdb, apiVersion: "policy/v1beta1" });
  });
  it("keeps the current version when the group serves none of them, or is not served", () => {
    expect(chooseServedVersion(pdb, { versions: [{ version: "v2alpha9" }] })).toBe(pdb);
    expect(chooseServedVersion(pdb, undefined)).toBe(pdb);
  });
});

describe("evictionApiVersion", () => {
  it("reads the pods/eviction entry's group and version", () => {
    expect(evictionApiVersion(CORE_1_20, "policy/v1")).toBe("policy/v1beta1");
  });
  it("falls back when the entry or its group/version is absent", () => {
    expect(evictionApiVersion({ resources: [{ name: "pods/eviction", kind: "Eviction" }] }, "policy/v1")).toBe("policy/v1");
    expect(evictionApiVersion(undefined, "policy/v1")).toBe("policy/v1");
  });
});

describe("transientDiscoveryError", () => {
  it("retries only what may change", () => {
    expect(transientDiscoveryError(new Error("ECONNREFUSED"))).toBe(true);
    expect(transientDiscoveryError(new KubeApiError(503, "", "GET /apis/policy"))).toBe(true);
    expect(transientDiscoveryError(new KubeApiError(403, "", "GET /apis/policy"))).toBe(false);
  });
});

describe("ApiDiscovery against kube-sim", () => {
  let sim: KubeSim;
  beforeAll(async () => {
    sim = await startKubeSim();
  });
  afterAll(() => sim.stop());

  it("picks policy/v1 for PDBs and Evictions, and serves kinds without older versions as they are", async () => {
    const d = new ApiDiscovery(kubeAccessForUrl(sim.url));
    expect((await d.served(Resources.podDisruptionBudget)).apiVersion).toBe("policy/v1");
    expect(await d.evictionApiVersion("policy/v1")).toBe("policy/v1");
    expect(await d.served(Resources.node)).toBe(Resources.node);
  });
});

describe("ApiDiscovery against a 1.20-shaped server", () => {
  const asked: string[] = [];
  let failNext = 0;
  const server = createServer((req, res) => {
    asked.push(req.url!);
    res.setHeader("content-type", "application/json");
    if (failNext > 0) {
      failNext--;
      res.statusCode = 503;
      res.end(JSON.stringify({ kind: "Status", status: "Failure", reason: "ServiceUnavailable", code: 503 }));
      return;
    }
    const doc = req.url === "/apis/policy" ? POLICY_1_20 : req.url === "/api/v1" ? CORE_1_20 : undefined;
    res.statusCode = doc ? 200 : 404;
    res.end(JSON.stringify(doc ?? { kind: "Status", status: "Failure", reason: "NotFound", code: 404 }));
  });
  let url = "";
  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it("picks policy/v1beta1, asking each document once", async () => {
    asked.length = 0;
    const d = new ApiDiscovery(kubeAccessForUrl(url));
    const [a, b] = await Promise.all([d.served(Resources.podDisruptionBudget), d.served(Resources.podDisruptionBudget)]);
    expect(a).toEqual({ ...Resources.podDisruptionBudget, apiVersion: "policy/v1beta1" });
    expect(b).toEqual(a);
    expect(await d.evictionApiVersion("policy/v1")).toBe("policy/v1beta1");
    expect(await d.evictionApiVersion("policy/v1")).toBe("policy/v1beta1");
    expect(asked).toEqual(["/apis/policy", "/api/v1"]);
  });

  it("keeps a group that is not served as absent, and asks again after a failure", async () => {
    asked.length = 0;
    const d = new ApiDiscovery(kubeAccessForUrl(url));
    expect(await d.group("machine.openshift.io")).toBeUndefined();
    expect(await d.group("machine.openshift.io")).toBeUndefined();
    failNext = 1;
    await expect(d.served(Resources.podDisruptionBudget)).rejects.toMatchObject({ code: 503 });
    expect((await d.served(Resources.podDisruptionBudget)).apiVersion).toBe("policy/v1beta1");
    expect(asked).toEqual(["/apis/machine.openshift.io", "/apis/policy", "/apis/policy"]);
  });
});
