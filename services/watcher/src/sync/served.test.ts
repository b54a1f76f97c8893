// The PDB version the watcher lists: policy/v1 on kube-sim (current Kubernetes), policy/v1beta1 on a
// server answering discovery as kube-apiserver 1.20 does, retried while discovery fails transiently.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { kubeAccessForUrl } from "@lockstep/kube";
import { startKubeSim, type KubeSim } from "@lockstep/kube-sim";
import { silentLogger } from "@lockstep/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { servedResources } from "./served.js";

describe("servedResources", () => {
  let sim: KubeSim;
  const answers: number[] = [];
  const server = createServer((req, res) => {
    const status = answers.shift() ?? 200;
    res.statusCode = status;
    res.setHeader("content-type", "application/json");
    if (status !== 200 || req.url !== "/apis/policy") res.end(JSON.stringify({ kind: "Status", status: "Failure", code: status === 200 ? 404 : status }));
    else res.end(JSON.stringify({ kind: "APIGroup", apiVersion: "v1", name: "policy", versions: [{ groupVersion: "policy/v1beta1", version: "v1beta1" }], preferredVersion: { groupVersion: "policy/v1beta1", version: "v1beta1" } }));
  });
  let oldUrl = "";
  beforeAll(async () => {
    sim = await startKubeSim();
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    oldUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await sim.stop();
    await new Promise<void>((r) => server.close(() => r()));
  });

  it("keeps policy/v1 where it is served", async () => {
    const served = await servedResources(kubeAccessForUrl(sim.url), silentLogger(), new AbortController().signal);
    expect(served.podDisruptionBudget.apiVersion).toBe("policy/v1");
  });

  it("lists policy/v1beta1 PDBs on a 1.20 server, after retrying transient failures", async () => {
    answers.push(503, 500);
    const served = await servedResources(kubeAccessForUrl(oldUrl), silentLogger(), new AbortController().signal, { minMs: 10 });
    expect(served.podDisruptionBudget).toMatchObject({ apiVersion: "policy/v1beta1", kind: "PodDisruptionBudget", plural: "poddisruptionbudgets" });
    expect(answers).toEqual([]);
  });

  it("keeps the current version when discovery is refused, and stops retrying when aborted", async () => {
    answers.push(403);
    expect((await servedResources(kubeAccessForUrl(oldUrl), silentLogger(), new AbortController().signal)).podDisruptionBudget.apiVersion).toBe("policy/v1");
    answers.length = 0;
    for (let i = 0; i < 100; i++) answers.push(503);
    const stop = new AbortController();
    const pending = servedResources(kubeAccessForUrl(oldUrl), silentLogger(), stop.signal, { minMs: 10_000 });
    setTimeout(() => stop.abort(), 50);
    expect((await pending).podDisruptionBudget.apiVersion).toBe("policy/v1");
    answers.length = 0;
  });
});
