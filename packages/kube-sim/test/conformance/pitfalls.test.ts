// kube-api.md §16.2: one numbered test per pitfall, against kube-sim (or the real server, see helpers.ts) over HTTP.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startKubeSim, type KubeSim } from "../../src/index.js";
import { call, conformanceServer, onRealServer, RawWatch, realServerBefore, SIM_ONLY, until } from "../helpers.js";

const CM = "/api/v1/namespaces/default/configmaps";
const WIDGETS = "/apis/example.com/v1/namespaces/default/widgets";

const widgetCrd = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "widgets.example.com" },
  spec: {
    group: "example.com",
    scope: "Namespaced",
    names: { plural: "widgets", singular: "widget", kind: "Widget", shortNames: ["wd"] },
    versions: [
      {
        name: "v1",
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: "object",
            properties: {
              spec: { type: "object", properties: { size: { type: "integer" }, color: { type: "string", enum: ["red", "blue"] }, free: { type: "object", "x-kubernetes-preserve-unknown-fields": true } } },
              status: { type: "object", properties: { phase: { type: "string" } } },
            },
          },
        },
      },
    ],
  },
};

let sim: KubeSim;
beforeAll(async () => {
  sim = await conformanceServer({ historyLimit: 50 });
  const r = await call(sim, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", widgetCrd);
  expect(r.status).toBe(201);
  // A real server serves a new CRD a moment after creating it (Established); kube-sim at once.
  await until(async () => (await call(sim, "GET", WIDGETS)).status === 200, "widgets served");
});
afterAll(() => sim.stop());

const conflictBody = (name: string, kind = "configmaps") => ({
  kind: "Status",
  apiVersion: "v1",
  metadata: {},
  status: "Failure",
  message: `Operation cannot be fulfilled on ${kind} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
  reason: "Conflict",
  details: { name, kind },
  code: 409,
});

describe("kube-api.md §16.2 conformance", () => {
  it("1. stale RV rejected on PUT, PATCH and /status with the exact Conflict body", async () => {
    const c = await call(sim, "POST", CM, { metadata: { name: "t1" }, data: { a: "1" } });
    const stale = c.json.metadata.resourceVersion;
    await call(sim, "PATCH", `${CM}/t1`, { data: { a: "2" } }, { "content-type": "application/merge-patch+json" });
    const put = await call(sim, "PUT", `${CM}/t1`, { ...c.json, data: { a: "3" } });
    expect(put.status).toBe(409);
    expect(put.json).toEqual(conflictBody("t1"));
    const patch = await call(sim, "PATCH", `${CM}/t1`, { metadata: { resourceVersion: stale }, data: { a: "4" } }, { "content-type": "application/merge-patch+json" });
    expect(patch.json).toEqual(conflictBody("t1"));
    const node = await call(sim, "POST", "/api/v1/nodes", { metadata: { name: "n-stale" } });
    await call(sim, "PATCH", "/api/v1/nodes/n-stale", { metadata: { labels: { x: "y" } } }, { "content-type": "application/merge-patch+json" });
    const st = await call(sim, "PUT", "/api/v1/nodes/n-stale/status", { ...node.json, status: { phase: "Running" } });
    expect(st.json).toEqual(conflictBody("n-stale", "nodes"));
  });

  it("2. every real write bumps the global RV; a no-op write bumps nothing and emits nothing", async () => {
    const a = await call(sim, "POST", CM, { metadata: { name: "t2" }, data: { a: "1" } });
    const b = await call(sim, "POST", "/api/v1/nodes", { metadata: { name: "n-rv" } });
    expect(Number(b.json.metadata.resourceVersion)).toBeGreaterThan(Number(a.json.metadata.resourceVersion));
    const w = new RawWatch(sim, `${CM}?watch=true&resourceVersion=${b.json.metadata.resourceVersion}`);
    const same = await call(sim, "PATCH", `${CM}/t2`, { data: { a: "1" } }, { "content-type": "application/merge-patch+json" });
    expect(same.json.metadata.resourceVersion).toBe(a.json.metadata.resourceVersion);
    const put = await call(sim, "PUT", `${CM}/t2`, a.json);
    expect(put.json.metadata.resourceVersion).toBe(a.json.metadata.resourceVersion);
    const real = await call(sim, "PATCH", `${CM}/t2`, { data: { a: "2" } }, { "content-type": "application/merge-patch+json" });
    expect(Number(real.json.metadata.resourceVersion)).toBeGreaterThan(Number(b.json.metadata.resourceVersion));
    const evs = await w.waitFor(1);
    w.close();
    expect(evs.map((e) => [e.type, e.object.metadata.resourceVersion])).toEqual([["MODIFIED", real.json.metadata.resourceVersion]]);
  });

  it("3. create/PUT RV rules: RV on create → 500; PUT without RV on CR/Lease → 422; on Node/ConfigMap ok; PUT on a missing Lease creates it", async () => {
    const bad = await call(sim, "POST", CM, { metadata: { name: "t3", resourceVersion: "5" } });
    expect(bad.status).toBe(500);
    expect(bad.json).toEqual({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message: "resourceVersion should not be set on objects to be created", code: 500 });
    const w = await call(sim, "POST", WIDGETS, { apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w3" }, spec: { size: 1 } });
    const noRv = { ...w.json, metadata: { name: "w3" }, spec: { size: 2 } };
    const r = await call(sim, "PUT", `${WIDGETS}/w3`, noRv);
    expect(r.status).toBe(422);
    // The store names the resource here (plural.group), not the kind as schema validation does.
    expect(r.json.message).toBe('widgets.example.com "w3" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update');
    expect(r.json.details).toMatchObject({ name: "w3", group: "example.com", kind: "widgets" });
    expect(r.json.details.causes).toEqual([{ reason: "FieldValueInvalid", message: "Invalid value: 0x0: must be specified for an update", field: "metadata.resourceVersion" }]);
    const LEASES = "/apis/coordination.k8s.io/v1/namespaces/default/leases";
    const created = await call(sim, "PUT", `${LEASES}/l3`, { metadata: { name: "l3" }, spec: { holderIdentity: "a", leaseDurationSeconds: 10 } });
    expect(created.status).toBe(201);
    const leaseNoRv = await call(sim, "PUT", `${LEASES}/l3`, { metadata: { name: "l3" }, spec: { holderIdentity: "b" } });
    expect(leaseNoRv.status).toBe(422);
    await call(sim, "POST", CM, { metadata: { name: "t3" }, data: { a: "1" } });
    expect((await call(sim, "PUT", `${CM}/t3`, { metadata: { name: "t3" }, data: { a: "2" } })).status).toBe(200);
    await call(sim, "POST", "/api/v1/nodes", { metadata: { name: "n3" } });
    expect((await call(sim, "PUT", "/api/v1/nodes/n3", { metadata: { name: "n3", labels: { a: "b" } } })).status).toBe(200);
    expect((await call(sim, "PUT", `${CM}/missing`, { metadata: { name: "missing" } })).status).toBe(404);
  });

  it("4. no list→watch gap: writes after the list RV, deletions included, are replayed", async () => {
    await call(sim, "POST", CM, { metadata: { name: "t4a", labels: { t: "4" } } });
    const list = await call(sim, "GET", `${CM}?labelSelector=t%3D4`);
    const rv = list.json.metadata.resourceVersion;
    await call(sim, "POST", CM, { metadata: { name: "t4b", labels: { t: "4" } } });
    await call(sim, "DELETE", `${CM}/t4a`);
    const w = new RawWatch(sim, `${CM}?watch=true&labelSelector=t%3D4&resourceVersion=${rv}`);
    const evs = await w.waitFor(2);
    w.close();
    expect(evs.map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual(["ADDED t4b", "DELETED t4a"]);
  });

  it("5. a compacted RV gets one ERROR 410 event and the stream closes", async (ctx) => {
    ctx.skip(onRealServer, SIM_ONLY.options);
    const first = await call(sim, "POST", CM, { metadata: { name: "t5" }, data: { n: "0" } });
    for (let i = 1; i <= 80; i++) await call(sim, "PATCH", `${CM}/t5`, { data: { n: String(i) } }, { "content-type": "application/merge-patch+json" });
    const w = new RawWatch(sim, `${CM}?watch=true&resourceVersion=${first.json.metadata.resourceVersion}`);
    await w.ended;
    expect(w.status).toBe(200);
    expect(w.events).toHaveLength(1);
    expect(w.events[0]!.type).toBe("ERROR");
    expect(w.events[0]!.object).toMatchObject({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", reason: "Expired", code: 410 });
    expect(w.events[0]!.object.message).toMatch(/^too old resource version: \d+ \(\d+\)$/);
  });

  it("6. selector transitions: DELETED (previous body, new RV) on leave, ADDED on enter", async () => {
    const c = await call(sim, "POST", CM, { metadata: { name: "t6", labels: { sel: "yes" } } });
    const w = new RawWatch(sim, `${CM}?watch=true&labelSelector=sel%3Dyes&resourceVersion=${c.json.metadata.resourceVersion}`);
    const off = await call(sim, "PATCH", `${CM}/t6`, { metadata: { labels: { sel: "no" } } }, { "content-type": "application/merge-patch+json" });
    const on = await call(sim, "PATCH", `${CM}/t6`, { metadata: { labels: { sel: "yes" } } }, { "content-type": "application/merge-patch+json" });
    const evs = await w.waitFor(2);
    w.close();
    expect(evs[0]!.type).toBe("DELETED");
    expect(evs[0]!.object.metadata.labels).toEqual({ sel: "yes" });
    expect(evs[0]!.object.metadata.resourceVersion).toBe(off.json.metadata.resourceVersion);
    expect(evs[1]!.type).toBe("ADDED");
    expect(evs[1]!.object.metadata.resourceVersion).toBe(on.json.metadata.resourceVersion);
  });

  it("7. field selectors filter list and watch; unknown fields → 400", async () => {
    await call(sim, "POST", "/api/v1/nodes", { metadata: { name: "n7a" }, spec: { unschedulable: true } });
    await call(sim, "POST", "/api/v1/nodes", { metadata: { name: "n7b" } });
    const cordoned = await call(sim, "GET", "/api/v1/nodes?fieldSelector=spec.unschedulable%3Dtrue");
    expect(cordoned.json.items.map((n: any) => n.metadata.name)).toEqual(["n7a"]);
    const byName = await call(sim, "GET", "/api/v1/nodes?fieldSelector=metadata.name%3Dn7b");
    expect(byName.json.items.map((n: any) => n.metadata.name)).toEqual(["n7b"]);
    const w = new RawWatch(sim, `/api/v1/nodes?watch=true&fieldSelector=metadata.name%3Dn7b&resourceVersion=${byName.json.metadata.resourceVersion}`);
    await call(sim, "PATCH", "/api/v1/nodes/n7a", { metadata: { labels: { a: "1" } } }, { "content-type": "application/merge-patch+json" });
    await call(sim, "PATCH", "/api/v1/nodes/n7b", { metadata: { labels: { a: "1" } } }, { "content-type": "application/merge-patch+json" });
    const evs = await w.waitFor(1);
    w.close();
    expect(evs.map((e) => e.object.metadata.name)).toEqual(["n7b"]);
    const pods = await call(sim, "GET", "/api/v1/pods?fieldSelector=spec.nodeName%3Dn7a");
    expect(pods.status).toBe(200);
    const bad = await call(sim, "GET", "/api/v1/nodes?fieldSelector=spec.foo%3Dx");
    expect(bad.status).toBe(400);
    expect(bad.json).toEqual({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message: "field label not supported: spec.foo", reason: "BadRequest", code: 400 });
  });

  it("8. status split: main writes keep status, /status keeps spec, no generation bump; CR create drops status", async () => {
    const c = await call(sim, "POST", WIDGETS, { apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w8" }, spec: { size: 1 }, status: { phase: "Born" } });
    expect(c.json.status).toBeUndefined();
    expect(c.json.metadata.generation).toBe(1);
    const s = await call(sim, "PUT", `${WIDGETS}/w8/status`, { ...c.json, spec: { size: 9 }, status: { phase: "Ready" } });
    expect(s.json.spec).toEqual({ size: 1 });
    expect(s.json.status).toEqual({ phase: "Ready" });
    expect(s.json.metadata.generation).toBe(1);
    const m = await call(sim, "PUT", `${WIDGETS}/w8`, { ...s.json, spec: { size: 2 }, status: { phase: "Hacked" } });
    expect(m.json.status).toEqual({ phase: "Ready" });
    expect(m.json.metadata.generation).toBe(2);
    const meta = await call(sim, "PATCH", `${WIDGETS}/w8`, { metadata: { labels: { a: "b" } } }, { "content-type": "application/merge-patch+json" });
    expect(meta.json.metadata.generation).toBe(2);
    const n = await call(sim, "POST", "/api/v1/nodes", { metadata: { name: "n8" }, spec: {}, status: { phase: "Running" } });
    // A real server returns a Node's status through Go types: nodeInfo and daemonEndpoints appear zero-valued
    // (README, "Known differences"); kube-sim keeps the JSON as written.
    if (onRealServer) expect(n.json.status).toMatchObject({ phase: "Running" });
    else expect(n.json.status).toEqual({ phase: "Running" });
    expect(n.json.metadata.generation).toBeUndefined();
    const np = await call(sim, "PATCH", "/api/v1/nodes/n8", { spec: { unschedulable: true }, status: { phase: "X" } }, { "content-type": "application/merge-patch+json" });
    expect(np.json.status).toEqual(n.json.status);
    // A real server's TaintNodesByCondition admission adds a not-ready taint to a new Node (README, "Known differences").
    if (onRealServer) expect(np.json.spec).toEqual({ unschedulable: true, taints: [{ key: "node.kubernetes.io/not-ready", effect: "NoSchedule" }] });
    else expect(np.json.spec).toEqual({ unschedulable: true });
  });

  it("9. pruning: unknown CR fields are dropped unless the schema preserves them; type errors → 422 with causes", async () => {
    const c = await call(sim, "POST", WIDGETS, {
      apiVersion: "example.com/v1",
      kind: "Widget",
      metadata: { name: "w9" },
      spec: { size: 1, bogus: true, free: { anything: [1, 2] } },
      top: "level",
    });
    expect(c.json.spec).toEqual({ size: 1, free: { anything: [1, 2] } });
    expect(c.json.top).toBeUndefined();
    const bad = await call(sim, "POST", WIDGETS, { apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w9b" }, spec: { size: "big", color: "green" } });
    expect(bad.status).toBe(422);
    expect(bad.json.reason).toBe("Invalid");
    expect(bad.json.message).toMatch(/^Widget\.example\.com "w9b" is invalid: \[/);
    // kube-apiserver's order follows Go map iteration and varies from call to call; kube-sim's is the schema's.
    expect(bad.json.details.causes.map((x: any) => x.field).sort()).toEqual(["spec.color", "spec.size"]);
  });

  it("10. patch semantics per content type", async () => {
    await call(sim, "POST", WIDGETS, { apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w10" }, spec: { size: 1 } });
    const smp = await call(sim, "PATCH", `${WIDGETS}/w10`, { spec: { size: 2 } }, { "content-type": "application/strategic-merge-patch+json" });
    expect(smp.status).toBe(415);
    expect(smp.json).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message:
        "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml",
      reason: "UnsupportedMediaType",
      code: 415,
    });
    const conds = { status: { conditions: [{ type: "Ready", status: "True" }, { type: "MemoryPressure", status: "False" }] } };
    await call(sim, "POST", "/api/v1/nodes", { metadata: { name: "n10" }, ...conds });
    const s = await call(sim, "PATCH", "/api/v1/nodes/n10/status", { status: { conditions: [{ type: "MemoryPressure", status: "True" }] } }, { "content-type": "application/strategic-merge-patch+json" });
    // A real server adds the zero-valued times (null) of the Go type (README, "Known differences").
    const written = (cs: any[]) => (onRealServer ? cs.map(({ type, status }) => ({ type, status })) : cs);
    expect(written(s.json.status.conditions)).toEqual([{ type: "Ready", status: "True" }, { type: "MemoryPressure", status: "True" }]);
    const m = await call(sim, "PATCH", "/api/v1/nodes/n10/status", { status: { conditions: [{ type: "Ready", status: "True" }] } }, { "content-type": "application/merge-patch+json" });
    expect(written(m.json.status.conditions)).toEqual([{ type: "Ready", status: "True" }]);
    const t = await call(sim, "PATCH", "/api/v1/nodes/n10", [{ op: "test", path: "/metadata/name", value: "other" }], { "content-type": "application/json-patch+json" });
    expect(t.status).toBe(422);
    expect(t.json).toEqual({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message: "the server rejected our request due to an error in our request", reason: "Invalid", details: {}, code: 422 });
    const na = await call(sim, "PATCH", "/api/v1/nodes/n10", { op: "add" }, { "content-type": "application/json-patch+json" });
    expect(na.status).toBe(400);
    expect(na.json.message).toBe("json: cannot unmarshal object into Go value of type jsonpatch.Patch");
    const u = await call(sim, "PATCH", "/api/v1/nodes/n10", { a: 1 }, { "content-type": "text/plain" });
    // The 1.20 oracle answers this one 406 NotAcceptable over HTTP/1.1 (415 over HTTP/2, as here); README.
    if (realServerBefore(21) && u.status === 406) expect(u.json).toMatchObject({ reason: "NotAcceptable", code: 406 });
    else expect(u.json).toMatchObject({ message: "415: Unsupported Media Type", reason: "UnsupportedMediaType", code: 415 });
  });

  it("11. deletion: finalizers defer, last finalizer removal deletes; bound pods stay Terminating", async () => {
    await call(sim, "POST", CM, { metadata: { name: "t11", finalizers: ["x/y"] } });
    const from = (await call(sim, "GET", CM)).json.metadata.resourceVersion;
    const w = new RawWatch(sim, `${CM}?watch=true&fieldSelector=metadata.name%3Dt11&resourceVersion=${from}`);
    const d = await call(sim, "DELETE", `${CM}/t11`);
    expect(d.status).toBe(200);
    expect(d.json.metadata.deletionTimestamp).toBeDefined();
    expect(d.json.metadata.deletionGracePeriodSeconds).toBe(0);
    const add = await call(sim, "PATCH", `${CM}/t11`, { metadata: { finalizers: ["x/y", "x/z"] } }, { "content-type": "application/merge-patch+json" });
    expect(add.status).toBe(422);
    const fin = await call(sim, "PATCH", `${CM}/t11`, { metadata: { finalizers: null } }, { "content-type": "application/merge-patch+json" });
    expect(fin.status).toBe(200);
    expect((await call(sim, "GET", `${CM}/t11`)).status).toBe(404);
    const evs = await w.waitFor(2);
    w.close();
    expect(evs.map((e) => e.type)).toEqual(["MODIFIED", "DELETED"]);
    const plain = await call(sim, "POST", CM, { metadata: { name: "t11b" } });
    const gone = await call(sim, "DELETE", `${CM}/t11b`);
    expect(gone.json).toEqual({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", details: { name: "t11b", kind: "configmaps", uid: plain.json.metadata.uid } });
    const PODS = "/api/v1/namespaces/default/pods";
    await call(sim, "POST", PODS, { metadata: { name: "p11" }, spec: { nodeName: "n1", containers: [{ name: "c", image: "i" }] } });
    const pd = await call(sim, "DELETE", `${PODS}/p11`);
    expect(pd.json.metadata.deletionGracePeriodSeconds).toBe(30);
    expect((await call(sim, "GET", `${PODS}/p11`)).status).toBe(200);
    await call(sim, "DELETE", `${PODS}/p11?gracePeriodSeconds=0`);
    expect((await call(sim, "GET", `${PODS}/p11`)).status).toBe(404);
    await call(sim, "POST", PODS, { metadata: { name: "p11b" }, spec: { containers: [{ name: "c", image: "i" }] } });
    await call(sim, "DELETE", `${PODS}/p11b`);
    expect((await call(sim, "GET", `${PODS}/p11b`)).status).toBe(404);
    // No namespace controller by default: a deleted namespace stays Terminating.
    await call(sim, "POST", "/api/v1/namespaces", { metadata: { name: "ns11" } });
    const nsd = await call(sim, "DELETE", "/api/v1/namespaces/ns11");
    expect(nsd.json.status.phase).toBe("Terminating");
    expect((await call(sim, "POST", "/api/v1/namespaces/ns11/configmaps", { metadata: { name: "x" } })).status).toBe(403);
  });

  it("11b. the namespace controller and GC act only when enabled", async (ctx) => {
    ctx.skip(onRealServer, SIM_ONLY.options);
    const s2 = await startKubeSim({ controllers: { namespace: true, gc: true } });
    try {
      await call(s2, "POST", "/api/v1/namespaces", { metadata: { name: "doomed" } });
      await call(s2, "POST", "/api/v1/namespaces/doomed/configmaps", { metadata: { name: "c" } });
      const owner = await call(s2, "POST", "/api/v1/nodes", { metadata: { name: "owner" } });
      await call(s2, "POST", "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases", {
        metadata: { name: "owner", ownerReferences: [{ apiVersion: "v1", kind: "Node", name: "owner", uid: owner.json.metadata.uid }] },
        spec: {},
      });
      await call(s2, "DELETE", "/api/v1/namespaces/doomed");
      await call(s2, "DELETE", "/api/v1/nodes/owner");
      await until(async () => (await call(s2, "GET", "/api/v1/namespaces/doomed")).status === 404, "namespace removal");
      await until(async () => (await call(s2, "GET", "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/owner")).status === 404, "lease GC");
    } finally {
      await s2.stop();
    }
  });

  it("12. pagination: one RV per chain, forced expiry → 410 with a fresh token, malformed → 400", async () => {
    for (let i = 0; i < 7; i++) await call(sim, "POST", "/api/v1/namespaces", { metadata: { name: `page-${i}` } });
    const p1 = await call(sim, "GET", "/api/v1/namespaces?limit=3");
    expect(p1.json.items).toHaveLength(3);
    expect(p1.json.metadata.remainingItemCount).toBeGreaterThan(0);
    await call(sim, "POST", "/api/v1/namespaces", { metadata: { name: "aaa-late" } });
    const names: string[] = p1.json.items.map((n: any) => n.metadata.name);
    let cont = p1.json.metadata.continue;
    while (cont) {
      const p = await call(sim, "GET", `/api/v1/namespaces?limit=3&continue=${encodeURIComponent(cont)}`);
      expect(p.json.metadata.resourceVersion).toBe(p1.json.metadata.resourceVersion);
      names.push(...p.json.items.map((n: any) => n.metadata.name));
      cont = p.json.metadata.continue;
    }
    expect(names).toEqual([...names].sort());
    expect(names).not.toContain("aaa-late");
    const bad = await call(sim, "GET", "/api/v1/namespaces?limit=2&continue=garbage");
    expect(bad.status).toBe(400);
    expect(bad.json.message).toMatch(/^invalid continue token/);
  });

  it("12b. pagination: forced continue expiry → 410 with a fresh token", async (ctx) => {
    ctx.skip(onRealServer, SIM_ONLY.faults);
    for (let i = 0; i < 3; i++) await call(sim, "POST", "/api/v1/namespaces", { metadata: { name: `page-b-${i}` } });
    const q1 = await call(sim, "GET", "/api/v1/namespaces?limit=2");
    sim.expireContinueTokens();
    const ex = await call(sim, "GET", `/api/v1/namespaces?limit=2&continue=${encodeURIComponent(q1.json.metadata.continue)}`);
    expect(ex.status).toBe(410);
    expect(ex.json.reason).toBe("Expired");
    expect(ex.json.message).toMatch(/^The provided continue parameter is too old to display a consistent list result\./);
    expect(typeof ex.json.metadata.continue).toBe("string");
    const resumed = await call(sim, "GET", `/api/v1/namespaces?limit=2&continue=${encodeURIComponent(ex.json.metadata.continue)}`);
    expect(resumed.status).toBe(200);
  });

  it("13. a non-410 error on a watch is surfaced as an HTTP error (client-node stops; see informer tests)", async (ctx) => {
    ctx.skip(onRealServer, SIM_ONLY.faults);
    sim.faults.set({ errors: [{ code: 500, probability: 1, verb: "watch", resource: "configmaps" }] });
    try {
      const r = await call(sim, "GET", `${CM}?watch=true&resourceVersion=1`);
      expect(r.status).toBe(500);
      expect(r.json).toMatchObject({ kind: "Status", reason: "InternalError", code: 500 });
    } finally {
      sim.faults.clear();
    }
  });

  it("14. eviction: PDB skipped for Pending/deleting, unready pods evictable, stale status → 429, blocked → 429 DisruptionBudget", async (ctx) => {
    ctx.skip(onRealServer, SIM_ONLY.controllers);
    const PODS = "/api/v1/namespaces/default/pods";
    const mkPod = async (name: string, ready: boolean, phase = "Running") => {
      await call(sim, "POST", PODS, { metadata: { name, labels: { app: "web" } }, spec: { nodeName: "n1", containers: [{ name: "c", image: "i" }] } });
      await call(sim, "PATCH", `${PODS}/${name}/status`, { status: { phase, conditions: [{ type: "Ready", status: ready ? "True" : "False" }] } }, { "content-type": "application/merge-patch+json" });
    };
    await mkPod("web-1", true);
    await mkPod("web-2", true);
    await mkPod("web-3", false);
    await mkPod("web-4", false, "Pending");
    await call(sim, "POST", "/apis/policy/v1/namespaces/default/poddisruptionbudgets", { metadata: { name: "web" }, spec: { minAvailable: 2, selector: { matchLabels: { app: "web" } } } });
    await until(async () => (await call(sim, "GET", "/apis/policy/v1/namespaces/default/poddisruptionbudgets/web")).json.status.observedGeneration === 1, "PDB status");
    const pdb = (await call(sim, "GET", "/apis/policy/v1/namespaces/default/poddisruptionbudgets/web")).json;
    expect(pdb.status).toMatchObject({ currentHealthy: 2, desiredHealthy: 2, disruptionsAllowed: 0, expectedPods: 4 });
    const ev = (name: string) => call(sim, "POST", `${PODS}/${name}/eviction`, { apiVersion: "policy/v1", kind: "Eviction", metadata: { name, namespace: "default" } });
    const blocked = await ev("web-1");
    expect(blocked.status).toBe(429);
    expect(blocked.json).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: "Cannot evict pod as it would violate the pod's disruption budget.",
      reason: "TooManyRequests",
      details: { causes: [{ reason: "DisruptionBudget", message: "The disruption budget web needs 2 healthy pods and has 2 currently" }] },
      code: 429,
    });
    expect((await ev("web-4")).status).toBe(201); // Pending: PDB skipped
    expect((await ev("web-3")).status).toBe(201); // not Ready while the budget is healthy
    // Allowed: one more healthy pod makes room for one disruption, which is consumed.
    await mkPod("web-5", true);
    await until(async () => (await call(sim, "GET", "/apis/policy/v1/namespaces/default/poddisruptionbudgets/web")).json.status.disruptionsAllowed === 1, "room");
    expect((await ev("web-1")).status).toBe(201);
    expect((await call(sim, "GET", `${PODS}/web-1`)).json.metadata.deletionTimestamp).toBeDefined();
    expect((await ev("web-2")).status).toBe(429);
  });

  it("14b. eviction: a PDB whose status the disruption controller has not written yet → 429 still being processed", async () => {
    // A spec change leaves status stale until the controller catches up; with it off (a bare kube-apiserver has
    // none), evictions say so.
    const s3 = onRealServer ? sim : await startKubeSim({ controllers: { disruption: false } });
    // policy/v1 PodDisruptionBudget is served from 1.21; the 1.20 oracle has only policy/v1beta1 (README).
    const pdbs = `/apis/${realServerBefore(21) ? "policy/v1beta1" : "policy/v1"}/namespaces/default/poddisruptionbudgets`;
    const PODS = "/api/v1/namespaces/default/pods";
    try {
      await call(s3, "POST", PODS, { metadata: { name: "p14b", labels: { app: "web14b" } }, spec: { nodeName: "n1", containers: [{ name: "c", image: "i" }] } });
      await call(s3, "PATCH", `${PODS}/p14b/status`, { status: { phase: "Running", conditions: [{ type: "Ready", status: "True" }] } }, { "content-type": "application/merge-patch+json" });
      expect((await call(s3, "POST", pdbs, { metadata: { name: "web14b" }, spec: { minAvailable: 0, selector: { matchLabels: { app: "web14b" } } } })).status).toBe(201);
      const stale = await call(s3, "POST", `${PODS}/p14b/eviction`, { metadata: { name: "p14b" } });
      expect(stale.status).toBe(429);
      expect(stale.json.details.causes[0]).toEqual({ reason: "DisruptionBudget", message: "The disruption budget web14b is still being processed by the server." });
    } finally {
      if (s3 !== sim) await s3.stop();
    }
  });

  it("15. scale without heartbeat storms: 5,000 nodes stored, listed and paged without per-object timers", async (ctx) => {
    ctx.skip(onRealServer, SIM_ONLY.store);
    const s5 = await startKubeSim();
    try {
      const nodes = s5.store.registry.get("", "nodes")!;
      for (let i = 0; i < 5000; i++) s5.store.create(nodes, undefined, { metadata: { name: `node-${String(i).padStart(5, "0")}`, labels: { pool: i % 2 ? "worker" : "infra" } } });
      const all = await call(s5, "GET", "/api/v1/nodes");
      expect(all.json.items).toHaveLength(5000);
      const workers = await call(s5, "GET", "/api/v1/nodes?labelSelector=pool%3Dworker&limit=500");
      expect(workers.json.items).toHaveLength(500);
      expect(workers.json.metadata.remainingItemCount).toBeUndefined();
      expect(workers.json.metadata.continue).toBeTruthy();
    } finally {
      await s5.stop();
    }
  });

  it("16. determinism: the same seed and clock produce the same objects and event sequence", async (ctx) => {
    ctx.skip(onRealServer, SIM_ONLY.options);
    const run = async () => {
      const s = await startKubeSim({ seed: 42, clock: () => new Date("2026-01-01T00:00:00Z") });
      try {
        const w = new RawWatch(s, `/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${s.store.resourceVersion}`);
        await call(s, "POST", "/api/v1/namespaces/default/configmaps", { metadata: { generateName: "cm-" } });
        await call(s, "POST", "/api/v1/namespaces/default/configmaps", { metadata: { name: "b" }, data: { x: "1" } });
        await call(s, "DELETE", "/api/v1/namespaces/default/configmaps/b");
        const evs = await w.waitFor(3);
        w.close();
        return evs;
      } finally {
        await s.stop();
      }
    };
    const [a, b] = [await run(), await run()];
    expect(a).toEqual(b);
    expect(a[0]!.object.metadata.name).toMatch(/^cm-[a-z0-9]{5}$/);
  });
});
