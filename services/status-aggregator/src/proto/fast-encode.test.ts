import { GetUpdateStatusResponse, type NodeInsight, type StateFreshness, UpdateStatus } from "@lockstep/contracts";
import { describe, expect, it } from "vitest";
import { encodeNodeField, encodeStatusAnswer, lengthDelimitedKey, varint } from "./fast-encode.js";

/** What a snapshot holds of an answer: the status without nodes, the node fields, the freshness field. */
function encoded(status: UpdateStatus, nodes: NodeInsight[], freshness?: StateFreshness) {
  const fields = nodes.map(encodeNodeField);
  return {
    statusBytes: UpdateStatus.encode(status).finish(),
    fieldChunks: [fields],
    fieldsLength: fields.reduce((n, f) => n + f.length, 0),
    freshnessBytes: freshness ? GetUpdateStatusResponse.encode({ status: undefined, freshness }).finish() : new Uint8Array(0),
  };
}

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
    const spliced = encodeStatusAnswer({ encoded: encoded(status, nodes), omitNodes: false });
    expect(GetUpdateStatusResponse.decode(spliced)).toEqual(GetUpdateStatusResponse.decode(GetUpdateStatusResponse.encode({ status: { ...status, nodes } }).finish()));
  });

  it("carries the view's freshness after the spliced status", () => {
    const nodes = [node("a", "")];
    const status = { updating: false, pools: [], nodes: [], health: [], healthFallback: true, revision: "8", now: new Date("2024-03-01T12:00:00Z") };
    const freshness = { ageSeconds: 41.1, stale: true, maxAgeSeconds: 15, heard: true };
    const spliced = encodeStatusAnswer({ encoded: encoded(status, nodes, freshness), omitNodes: false });
    expect(GetUpdateStatusResponse.decode(spliced)).toEqual(GetUpdateStatusResponse.decode(GetUpdateStatusResponse.encode({ status: { ...status, nodes }, freshness }).finish()));
  });

  it("without nodes writes exactly the ordinary encoding's bytes, and writes varints like protobuf", () => {
    const status = { updating: true, pools: [], nodes: [], health: [], healthFallback: false, revision: "9", now: new Date("2024-03-01T12:00:00Z") };
    const freshness = { ageSeconds: 1, stale: false, maxAgeSeconds: 15, heard: true };
    const bytes = encodeStatusAnswer({ encoded: encoded(status, [node("a", "")], freshness), omitNodes: true });
    expect(bytes).toEqual(Buffer.from(GetUpdateStatusResponse.encode({ status, freshness }).finish()));
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
