import { describe, expect, it } from "vitest";
import { scanSources, tripleKey } from "./rbac-scan.js";

const resources = {
  lease: { apiVersion: "coordination.k8s.io/v1", plural: "leases" },
  machineSet: { apiVersion: "machine.openshift.io/v1beta1", plural: "machinesets" },
  node: { apiVersion: "v1", plural: "nodes" },
};
const keys = (files: Record<string, string>) => scanSources(files, resources).calls.map(tripleKey).sort();

describe("RBAC source scanner", () => {
  it("maps typed client methods on makeApiClient receivers to verbs and resources", () => {
    const src = `
      class S {
        constructor(kc) { this.coord = kc.makeApiClient(CoordinationV1Api); }
        a() { return this.coord.readNamespacedLease({ name, namespace }); }
        b() { return this.coord.replaceNamespacedLease({ name, namespace, body }); }
      }
      const core = kc.makeApiClient(CoreV1Api);
      await core.createNamespace({ body });`;
    expect(keys({ "a.ts": src })).toEqual(["coordination.k8s.io|leases|get", "coordination.k8s.io|leases|update", "|namespaces|create"]);
  });

  it("maps TokenReview and SubjectAccessReview creation to create on their review resources", () => {
    const src = `
      const authn = makeJsonApiClient(kc, AuthenticationV1Api);
      const authz = kc.makeApiClient(AuthorizationV1Api);
      await authn.createTokenReview({ body });
      await authz.createSubjectAccessReview({ body });`;
    expect(keys({ "auth.ts": src })).toEqual(["authentication.k8s.io|tokenreviews|create", "authorization.k8s.io|subjectaccessreviews|create"]);
  });

  it("resolves custom-object group and plural through consts, spreads and the Resources table", () => {
    const src = `
      const GROUP = "config.openshift.io";
      const PLURAL = "clusteroperators";
      const ms = Resources.machineSet;
      const msRef = { group: groupOf(ms), version: versionOf(ms), plural: ms.plural };
      const api = kc.makeApiClient(CustomObjectsApi);
      await api.replaceClusterCustomObjectStatus({ group: GROUP, version: "v1", plural: PLURAL, name, body });
      await api.patchNamespacedCustomObject({ ...msRef, namespace, name, body });`;
    expect(keys({ "b.ts": src })).toEqual(["config.openshift.io|clusteroperators/status|update", "machine.openshift.io|machinesets|patch"]);
  });

  it("expands an Informer over the service's resource table", () => {
    const files = {
      "watched.ts": `const out = [{ name: "nodes", resource: Resources.node }, { name: "l", resource: Resources.lease }];`,
      "sync.ts": `const informer = new Informer(this.o.kc, w.resource, {});`,
    };
    expect(keys(files)).toEqual(["coordination.k8s.io|leases|list", "coordination.k8s.io|leases|watch", "|nodes|list", "|nodes|watch"]);
  });

  it("reports what it cannot resolve instead of ignoring it", () => {
    const src = `
      const api = kc.makeApiClient(CustomObjectsApi);
      await api.getClusterCustomObject(ref);
      await api.frobnicate();
      const o = KubernetesObjectApi.makeApiClient(kc);
      const x = kc.makeApiClient(StorageV1Api);`;
    const { unresolved } = scanSources({ "c.ts": src }, resources);
    expect(unresolved).toHaveLength(4);
    expect(unresolved.join("\n")).toMatch(/getClusterCustomObject: group\/plural are not/);
    expect(unresolved.join("\n")).toMatch(/frobnicate is not a method/);
    expect(unresolved.join("\n")).toMatch(/KubernetesObjectApi/);
    expect(unresolved.join("\n")).toMatch(/StorageV1Api is not known/);
  });
});
