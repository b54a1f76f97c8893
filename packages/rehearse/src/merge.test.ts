import { describe, expect, it } from "vitest";
import { mergeNodeStatus, mergePatch } from "./merge.js";

describe("mergePatch (RFC 7386)", () => {
  it("merges objects, replaces the rest, deletes on null, never mutates", () => {
    const target = { metadata: { annotations: { a: "1", b: "2" } }, spec: { unschedulable: true, taints: [1] } };
    const out = mergePatch(target, { metadata: { annotations: { b: null, c: "3" } }, spec: { unschedulable: null, taints: [2] } });
    expect(out).toEqual({ metadata: { annotations: { a: "1", c: "3" } }, spec: { taints: [2] } });
    expect(target.metadata.annotations).toEqual({ a: "1", b: "2" });
  });
});

describe("mergeNodeStatus", () => {
  it("merges conditions by type", () => {
    const status = { conditions: [{ type: "Ready", status: "True", reason: "KubeletReady" }, { type: "DiskPressure", status: "False" }], nodeInfo: { kubeletVersion: "v1.28" } };
    const out = mergeNodeStatus(status, { conditions: [{ type: "Ready", status: "False" }], nodeInfo: { osImage: "rhcos" } });
    expect(out).toEqual({ conditions: [{ type: "Ready", status: "False", reason: "KubeletReady" }, { type: "DiskPressure", status: "False" }], nodeInfo: { kubeletVersion: "v1.28", osImage: "rhcos" } });
  });
});
