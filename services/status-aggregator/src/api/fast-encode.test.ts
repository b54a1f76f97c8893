import { GetUpdateStatusResponse, type NodeInsight } from "@lockstep/contracts";
import { describe, expect, it } from "vitest";
import { concatNodeFields, encodeGetUpdateStatusResponse, encodeNodeField, varint, withNodeFields } from "./fast-encode.js";

const node = (name: string, message: string): NodeInsight => ({
  name,
  pool: "worker",
  scopeType: "WorkerPool",
  version: "4.16.1",
  estimatedToComplete: "5m0s",
  estimatedToCompletePresent: true,
  message,
  conditions: [{ type: "Updating", status: "True", reason: "Updating", message: "The node is updating", lastTransitionTime: new Date("2024-03-01T12:00:00Z") }],
  record: { isUpdated: false, isUpdating: true, isUnavailable: false, isDegraded: false, isDraining: false, assessment: "Progressing", phase: "Updating", versionCell: "4.16.1", estCell: "+5m", messageCell: message },
});

describe("fast GetUpdateStatus encoding", () => {
  it("decodes to the same message as the ordinary encoding", () => {
    const nodes = [node("a", ""), node("b", "x".repeat(300))];
    const status = { updating: true, pools: [], nodes: [], health: [], healthFallback: true, revision: "7", now: new Date("2024-03-01T12:00:00Z") };
    const spliced = encodeGetUpdateStatusResponse(withNodeFields({ status }, nodes.map(encodeNodeField)));
    expect(GetUpdateStatusResponse.decode(spliced)).toEqual(GetUpdateStatusResponse.decode(GetUpdateStatusResponse.encode({ status: { ...status, nodes } }).finish()));
  });

  it("falls back to the ordinary encoding without attached fields, and writes varints like protobuf", () => {
    const res = { status: undefined };
    expect(encodeGetUpdateStatusResponse(res)).toEqual(Buffer.from(GetUpdateStatusResponse.encode(res).finish()));
    expect([...varint(1)]).toEqual([1]);
    expect([...varint(300)]).toEqual([0xac, 0x02]);
    expect([...varint(2 ** 21)]).toEqual([0x80, 0x80, 0x80, 0x01]);
  });
});

describe("concatNodeFields", () => {
  it("concatenates name-ordered node fields, re-encoding only nodes missing from the cache", () => {
    const cache = new Map<string, Uint8Array>();
    const first = [node("a", "one"), node("b", "two")];
    const blob = concatNodeFields(first, cache);
    expect(blob).toEqual(Buffer.concat(first.map(encodeNodeField)));
    expect(cache.get("a")!.buffer).toBe(blob.buffer); // views into the blob, not copies

    // "b" changed (the aggregator drops its cache entry); "a" is reused as is, even if the object differs.
    cache.delete("b");
    const second = [node("a", "stale object, cached bytes win"), node("b", "changed"), node("c", "new")];
    const next = concatNodeFields(second, cache);
    expect(next).toEqual(Buffer.concat([encodeNodeField(first[0]!), encodeNodeField(second[1]!), encodeNodeField(second[2]!)]));
    const status = { updating: true, pools: [], nodes: [], health: [], healthFallback: true, revision: "1", now: undefined };
    const decoded = GetUpdateStatusResponse.decode(encodeGetUpdateStatusResponse(withNodeFields({ status }, next)));
    expect(decoded.status!.nodes.map((n) => [n.name, n.message])).toEqual([["a", "one"], ["b", "changed"], ["c", "new"]]);
  });
});
