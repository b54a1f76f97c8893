import { describe, expect, it } from "vitest";
import { builtinTypes } from "./builtins.js";
import { crdToType } from "./crds.js";
import { KubeError } from "./errors.js";
import { fieldValidationOf, unknownFields, validateFields } from "./field-validation.js";
import { publishedSchema } from "./openapi.js";

const type = (plural: string) => builtinTypes().find((t) => t.plural === plural)!;
const nodeSchema = publishedSchema(type("nodes"), "v1");

describe("unknownFields", () => {
  it("names undeclared fields by path, in metadata, nested objects and list items", () => {
    const node = {
      apiVersion: "v1",
      kind: "Node",
      metadata: { name: "n", labelz: {}, ownerReferences: [{ apiVersion: "v1", kind: "X", name: "x", uid: "u", extra: 1 }] },
      spec: { unschedulable: true, taints: [{ key: "k", effect: "NoSchedule", efect: "x" }] },
      statuss: {},
    };
    expect(unknownFields(node, nodeSchema)).toEqual(["metadata.labelz", "metadata.ownerReferences[0].extra", "spec.taints[0].efect", "statuss"]);
  });

  it("accepts any key of maps and of parts that keep unknown fields, and patch directives", () => {
    const node = { metadata: { labels: { anything: "x" } }, status: { capacity: { cpu: "4" }, config: { whatever: 1 } }, spec: { $retainKeys: ["taints"] } };
    expect(unknownFields(node, nodeSchema)).toEqual([]);
    expect(unknownFields({ spec: { containers: [{ whatever: 1 }] } }, publishedSchema(type("pods"), "v1"))).toEqual([]);
  });

  it("checks custom resources against their CRD's schema, whose root never keeps unknown fields", () => {
    const t = crdToType({
      spec: {
        group: "example.com",
        scope: "Namespaced",
        names: { plural: "widgets", kind: "Widget" },
        versions: [
          {
            name: "v1",
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: "object", properties: { spec: { type: "object", properties: { size: { type: "integer" } } }, status: { type: "object", "x-kubernetes-preserve-unknown-fields": true } } } },
          },
        ],
      },
    });
    const schema = publishedSchema(t, "v1");
    expect(unknownFields({ apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w" }, spec: { size: 1, colour: "red" }, status: { x: 1 }, extra: 1 }, schema)).toEqual([
      "spec.colour",
      "extra",
    ]);
  });
});

describe("validateFields", () => {
  const body = { metadata: { name: "n" }, spec: { podCIDRx: "10.0.0.0/24" } };

  it("Strict: a 400 with kube-apiserver's strict-decoding message", () => {
    let err: unknown;
    try {
      validateFields("Strict", body, nodeSchema, "Node", "v1");
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(KubeError);
    expect((err as KubeError).code).toBe(400);
    expect((err as KubeError).status.message).toBe('Node in version "v1" cannot be handled as a Node: strict decoding error: unknown field "spec.podCIDRx"');
  });

  it("Warn: the same findings as warnings; Ignore: nothing", () => {
    expect(validateFields("Warn", body, nodeSchema, "Node", "v1")).toEqual(['unknown field "spec.podCIDRx"']);
    expect(validateFields("Ignore", body, nodeSchema, "Node", "v1")).toEqual([]);
  });

  it("reads the directive from the query and refuses an unknown one", () => {
    expect(fieldValidationOf(new URLSearchParams(""))).toBe("Ignore");
    expect(fieldValidationOf(new URLSearchParams("fieldValidation=Strict"))).toBe("Strict");
    expect(() => fieldValidationOf(new URLSearchParams("fieldValidation=strict"))).toThrow(/must be one of "Ignore", "Warn", or "Strict"/);
  });
});
