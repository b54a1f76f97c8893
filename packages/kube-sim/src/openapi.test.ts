import { describe, expect, it } from "vitest";
import { builtinTypes } from "./builtins.js";
import { crdToType } from "./crds.js";
import { definitionName, openApiV2, openApiV3Document, openApiV3Root, publishedSchema } from "./openapi.js";
import { Registry } from "./registry.js";

const WIDGETS = crdToType({
  spec: {
    group: "example.com",
    scope: "Cluster",
    names: { plural: "widgets", kind: "Widget" },
    versions: [
      {
        name: "v1",
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: "object", description: "A widget.", properties: { metadata: { type: "object" }, spec: { type: "object", properties: { size: { type: "integer" } } } } } },
      },
    ],
  },
});

function registry(): Registry {
  const r = new Registry();
  for (const t of builtinTypes()) r.add(t);
  return r;
}

describe("published schemas", () => {
  it("wraps a CRD's schema: apiVersion, kind, ObjectMeta for metadata, and the kind's GVK", () => {
    const s = publishedSchema(WIDGETS, "v1");
    expect(Object.keys(s.properties!)).toEqual(["apiVersion", "kind", "metadata", "spec"]);
    expect(s.properties!.metadata!.$ref).toBe("#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta");
    expect(s.description).toBe("A widget.");
    expect(s["x-kubernetes-group-version-kind"]).toEqual([{ group: "example.com", version: "v1", kind: "Widget" }]);
    expect(definitionName(WIDGETS, "v1")).toBe("com.example.v1.Widget");
  });

  it("names built-ins as kube-apiserver does", () => {
    const byPlural = (p: string) => builtinTypes().find((t) => t.plural === p)!;
    expect(definitionName(byPlural("nodes"), "v1")).toBe("io.k8s.api.core.v1.Node");
    expect(definitionName(byPlural("leases"), "v1")).toBe("io.k8s.api.coordination.v1.Lease");
    expect(definitionName(byPlural("customresourcedefinitions"), "v1")).toBe("io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition");
  });
});

describe("/openapi/v3", () => {
  it("lists every group-version with a hash that changes when the types do", () => {
    const r = registry();
    const root = openApiV3Root(r) as { paths: Record<string, { serverRelativeURL: string }> };
    expect(root.paths["api/v1"]!.serverRelativeURL).toMatch(/^\/openapi\/v3\/api\/v1\?hash=[0-9A-F]{128}$/);
    expect(root.paths["apis/coordination.k8s.io/v1"]).toBeDefined();
    expect(root.paths["apis/example.com/v1"]).toBeUndefined();
    const before = root.paths["apis/rbac.authorization.k8s.io/v1"]!.serverRelativeURL;
    r.add(WIDGETS);
    const after = openApiV3Root(r) as typeof root;
    expect(after.paths["apis/example.com/v1"]).toBeDefined();
    expect(after.paths["apis/rbac.authorization.k8s.io/v1"]!.serverRelativeURL).toBe(before);
  });

  it("declares fieldValidation on each kind's PATCH (kubectl then leaves validation to the server) and refs in allOf", () => {
    const r = registry();
    r.add(WIDGETS);
    const doc = JSON.parse(openApiV3Document(r, "apis/example.com/v1")!);
    const patch = doc.paths["/apis/example.com/v1/widgets/{name}"].patch;
    expect(patch["x-kubernetes-group-version-kind"]).toEqual({ group: "example.com", version: "v1", kind: "Widget" });
    expect(patch.parameters.filter((p: any) => p.in === "query").map((p: any) => p.name)).toContain("fieldValidation");
    const schema = doc.components.schemas["com.example.v1.Widget"];
    expect(schema.properties.metadata.allOf).toEqual([{ $ref: "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta" }]);
    expect(doc.components.schemas["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"].properties.name.type).toBe("string");
    expect(openApiV3Document(r, "apis/example.com/v2")).toBeUndefined();
    expect(JSON.parse(openApiV3Document(r, "api/v1")!).paths["/api/v1/namespaces/{namespace}/configmaps/{name}"]).toBeDefined();
  });
});

describe("/openapi/v2", () => {
  it("holds every kind under definitions, with namespaced and cluster-wide paths", () => {
    const doc = JSON.parse(openApiV2(registry()));
    expect(doc.swagger).toBe("2.0");
    expect(doc.definitions["io.k8s.api.core.v1.Node"].properties.spec.properties.unschedulable.type).toBe("boolean");
    expect(doc.paths["/api/v1/nodes/{name}"].patch.parameters.map((p: any) => p.name)).toEqual(["name", "dryRun", "fieldManager", "fieldValidation", "force", "body"]);
    expect(doc.paths["/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases"].post["x-kubernetes-action"]).toBe("post");
  });
});
