import { GetUpdateStatusResponse, type NodeInsight } from "@lockstep/contracts";
import { describe, expect, it } from "vitest";
import { encodeGetUpdateStatusResponse, encodeNodeField, lengthDelimitedKey, varint, withNodeFields } from "./fast-encode.js";

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

  it("carries the view's freshness after the spliced status", () => {
    const nodes = [node("a", "")];
    const status = { updating: false, pools: [], nodes: [], health: [], healthFallback: true, revision: "8", now: new Date("2024-03-01T12:00:00Z") };
    const freshness = { ageSeconds: 41.1, stale: true, maxAgeSeconds: 15, heard: true };
    const spliced = encodeGetUpdateStatusResponse(withNodeFields({ status, freshness }, nodes.map(encodeNodeField)));
    expect(GetUpdateStatusResponse.decode(spliced)).toEqual(GetUpdateStatusResponse.decode(GetUpdateStatusResponse.encode({ status: { ...status, nodes }, freshness }).finish()));
  });

  it("falls back to the ordinary encoding without attached fields, and writes varints like protobuf", () => {
    const res = { status: undefined };
    expect(encodeGetUpdateStatusResponse(res)).toEqual(Buffer.from(GetUpdateStatusResponse.encode(res).finish()));
    expect([...varint(1)]).toEqual([1]);
    expect([...varint(300)]).toEqual([0xac, 0x02]);
    expect([...varint(2 ** 21)]).toEqual([0x80, 0x80, 0x80, 0x01]);
  });

  it("takes field keys from what the generated encoder writes, and refuses anything but one length-delimited field", () => {
    expect([...lengthDelimitedKey(Uint8Array.of(0x2a, 0x00), "f5")]).toEqual([0x2a]);
    expect([...lengthDelimitedKey(Uint8Array.of(0x82, 0x01, 0x00), "f16")]).toEqual([0x82, 0x01]);
    expect(() => lengthDelimitedKey(Uint8Array.of(0x08, 0x00), "varint")).toThrow(/varint: the generated encoder/);
    expect(() => lengthDelimitedKey(Uint8Array.of(0x2a, 0x01, 0x08), "not empty")).toThrow();
    expect(() => lengthDelimitedKey(new Uint8Array(0), "nothing")).toThrow();
  });
});
