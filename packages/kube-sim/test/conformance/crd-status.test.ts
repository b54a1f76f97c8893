// `status` of a custom resource on create (issue 32), against kube-sim or the oracle (helpers.ts):
// where the CRD version declares the status subresource, status is dropped on create and written
// only through /status; where it does not, status is an ordinary field and kept, and there is no
// /status. Subresources are per version: one CRD may have both kinds of version.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KubeSim } from "../../src/index.js";
import { call, conformanceServer, until } from "../helpers.js";

const GROUP = "crdstatus.example.com";
const schema = {
  openAPIV3Schema: {
    type: "object",
    properties: {
      spec: { type: "object", properties: { size: { type: "integer" } } },
      status: { type: "object", properties: { phase: { type: "string" } } },
    },
  },
};

/** v1 without the status subresource, v2 with it (the same schema). */
const gadgetCrd = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: `gadgets.${GROUP}` },
  spec: {
    group: GROUP,
    scope: "Namespaced",
    names: { plural: "gadgets", singular: "gadget", kind: "Gadget" },
    versions: [
      { name: "v1", served: true, storage: true, schema },
      { name: "v2", served: true, storage: false, schema, subresources: { status: {} } },
    ],
  },
};

/** One version, no status subresource at all. */
const gizmoCrd = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: `gizmos.${GROUP}` },
  spec: { group: GROUP, scope: "Cluster", names: { plural: "gizmos", singular: "gizmo", kind: "Gizmo" }, versions: [{ name: "v1", served: true, storage: true, schema }] },
};

const path = (version: string, plural: string, name = "", namespaced = plural === "gadgets") =>
  `/apis/${GROUP}/${version}${namespaced ? "/namespaces/default" : ""}/${plural}${name ? `/${name}` : ""}`;
const obj = (version: string, kind: string, name: string) => ({ apiVersion: `${GROUP}/${version}`, kind, metadata: { name }, spec: { size: 1 }, status: { phase: "Ready" } });

let sim: KubeSim;
beforeAll(async () => {
  sim = await conformanceServer();
  for (const crd of [gadgetCrd, gizmoCrd]) expect((await call(sim, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd)).status).toBe(201);
  await until(async () => (await call(sim, "GET", path("v2", "gadgets"))).status === 200 && (await call(sim, "GET", path("v1", "gizmos"))).status === 200, "gadgets and gizmos served");
});
afterAll(async () => {
  for (const crd of [gadgetCrd, gizmoCrd]) await call(sim, "DELETE", `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata.name}`);
  await sim.stop();
});

describe("custom resource status on create", () => {
  it("keeps status when the CRD has no status subresource, and serves no /status", async () => {
    const created = await call(sim, "POST", path("v1", "gizmos"), obj("v1", "Gizmo", "g1"));
    expect(created.status).toBe(201);
    expect(created.json.status).toEqual({ phase: "Ready" });
    expect((await call(sim, "GET", path("v1", "gizmos", "g1"))).json.status).toEqual({ phase: "Ready" });
    expect((await call(sim, "GET", `${path("v1", "gizmos", "g1")}/status`)).status).toBe(404);
  });

  it("keeps status through a version without the subresource, drops it through one with it", async () => {
    const viaV1 = await call(sim, "POST", path("v1", "gadgets"), obj("v1", "Gadget", "a"));
    expect(viaV1.status).toBe(201);
    expect(viaV1.json.status).toEqual({ phase: "Ready" });
    const viaV2 = await call(sim, "POST", path("v2", "gadgets"), obj("v2", "Gadget", "b"));
    expect(viaV2.status).toBe(201);
    expect(viaV2.json.status).toBeUndefined();
    expect((await call(sim, "GET", `${path("v1", "gadgets", "a")}/status`)).status).toBe(404);
    expect((await call(sim, "GET", `${path("v2", "gadgets", "a")}/status`)).status).toBe(200);
  });

  it("updates status as an ordinary field where there is no subresource", async () => {
    const got = (await call(sim, "GET", path("v1", "gizmos", "g1"))).json;
    const put = await call(sim, "PUT", path("v1", "gizmos", "g1"), { ...got, status: { phase: "Done" } });
    expect(put.status).toBe(200);
    expect(put.json.status).toEqual({ phase: "Done" });
  });
});
