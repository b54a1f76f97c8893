import { describe, expect, it } from "vitest";
import { KubeError } from "./errors.js";
import { jsonPatch, mergePatch, strategicMerge } from "./patch.js";

const node = {
  metadata: { name: "n1", finalizers: ["a"] },
  spec: { taints: [{ key: "k", effect: "NoSchedule", value: "1" }] },
  status: { conditions: [{ type: "Ready", status: "True" }, { type: "MemoryPressure", status: "False" }] },
};

describe("merge patch (RFC 7386)", () => {
  it("null deletes, objects merge, lists are replaced whole", () => {
    const out = mergePatch(node, { metadata: { finalizers: null }, status: { conditions: [{ type: "Ready", status: "False" }] } }) as any;
    expect(out.metadata).toEqual({ name: "n1" });
    expect(out.status.conditions).toEqual([{ type: "Ready", status: "False" }]);
    expect(node.status.conditions).toHaveLength(2);
  });
});

describe("strategic merge patch", () => {
  it("merges conditions by type and taints by key+effect", () => {
    const out = strategicMerge(node, {
      status: { conditions: [{ type: "MemoryPressure", status: "True" }] },
      spec: { taints: [{ key: "k", effect: "NoExecute" }] },
    }) as any;
    expect(out.status.conditions).toEqual([
      { type: "Ready", status: "True" },
      { type: "MemoryPressure", status: "True" },
    ]);
    expect(out.spec.taints).toHaveLength(2);
  });
  it("honours $patch: delete, $patch: replace, $deleteFromPrimitiveList and ignores $setElementOrder", () => {
    const out = strategicMerge(node, {
      $setElementOrder: 1,
      "$setElementOrder/conditions": [{ type: "Ready" }],
      metadata: { "$deleteFromPrimitiveList/finalizers": ["a"] },
      status: { conditions: [{ type: "Ready", $patch: "delete" }] },
      spec: { $patch: "replace", unschedulable: true },
    }) as any;
    expect(out.status.conditions).toEqual([{ type: "MemoryPressure", status: "False" }]);
    expect(out.metadata.finalizers).toEqual([]);
    expect(out.spec).toEqual({ unschedulable: true });
  });
  it("unions finalizers (merge strategy)", () => {
    const out = strategicMerge(node, { metadata: { finalizers: ["b"] } }) as any;
    expect(out.metadata.finalizers).toEqual(["a", "b"]);
  });
});

describe("JSON patch (RFC 6902)", () => {
  it("applies add/remove/replace/move/copy/test", () => {
    const out = jsonPatch(
      { a: { b: 1 }, l: [1, 2] },
      [
        { op: "test", path: "/a/b", value: 1 },
        { op: "add", path: "/l/-", value: 3 },
        { op: "replace", path: "/a/b", value: 2 },
        { op: "copy", from: "/a", path: "/c" },
        { op: "move", from: "/l/0", path: "/first" },
        { op: "remove", path: "/a" },
      ],
    );
    expect(out).toEqual({ c: { b: 2 }, l: [2, 3], first: 1 });
  });
  it("a failed test is 422 and a non-array body is 400", () => {
    expect(() => jsonPatch({ a: 1 }, [{ op: "test", path: "/a", value: 2 }])).toThrow(KubeError);
    try {
      jsonPatch({ a: 1 }, [{ op: "test", path: "/a", value: 2 }]);
    } catch (e) {
      expect((e as KubeError).status).toMatchObject({ code: 422, reason: "Invalid", message: "the server rejected our request due to an error in our request", details: {} });
    }
    try {
      jsonPatch({ a: 1 }, { op: "add" });
    } catch (e) {
      expect((e as KubeError).status).toMatchObject({ code: 400, message: "json: cannot unmarshal object into Go value of type jsonpatch.Patch" });
    }
  });
});
