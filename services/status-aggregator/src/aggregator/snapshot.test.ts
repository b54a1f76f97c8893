import { GetUpdateStatusResponse, UpdateStatus } from "@lockstep/contracts";
import { type NodeRecord, StatusError } from "@lockstep/insights";
import { describe, expect, it } from "vitest";
import { encodeNodeField, encodeStatusAnswer } from "../proto/fast-encode.js";
import { nodeInsightToProto } from "../proto/to-proto.js";
import { type NodeRow, type SnapshotInput, StatusSnapshot } from "./snapshot.js";

const row = (name: string, message = "", assessment: NodeRecord["assessment"] = "Progressing"): NodeRow => ({
  record: {
    name,
    pool: "worker",
    scopeType: "WorkerPool",
    assessment,
    phase: "Updating",
    version: "4.16.1",
    estimate: "+5m",
    message,
    isUpdated: false,
    isUpdating: true,
    isUnavailable: false,
    isDegraded: false,
    isDraining: false,
    unavailableReason: "",
    unavailableSince: 0n,
    degradedReason: "",
  },
  since: 1_700_000_000_000_000_000n,
});

/** Not evaluable: the node parts alone are under test here (the status comes from real evaluations in the integration tests). */
const input = (names: string[], changed: NodeRow[], removed: string[] = []): SnapshotInput => ({
  cause: "flush",
  revision: 1,
  names,
  changed,
  removed,
  evaluated: { error: new StatusError("NoClusterVersion", "no ClusterVersion") },
  clusterVersion: undefined,
  clusterOperators: [],
  freshness: undefined,
});

const expectedFields = (rows: NodeRow[]) => rows.map((r) => encodeNodeField(nodeInsightToProto(r.record, r.since)));

describe("StatusSnapshot", () => {
  it("encodes each node once, when first asked for, and shares unchanged nodes' rows and bytes with the previous snapshot", () => {
    const a = row("a");
    const b = row("b");
    const d = row("d");
    const names1 = ["a", "b", "d"];
    const s1 = StatusSnapshot.next(undefined, input(names1, [a, b, d]));
    expect(s1.fields.toArray()).toEqual([undefined, undefined, undefined]); // nothing asked yet
    expect(s1.fieldChunks.flat()).toEqual(expectedFields([a, b, d]));
    expect(s1.fieldsLength).toBe(s1.fieldChunks.flat().reduce((n, f) => n + f.length, 0));

    // b changed, the same names array (no row came or went): a and d kept, b encoded anew.
    const b2 = row("b", "changed");
    const s2 = StatusSnapshot.next(s1, input(names1, [b2]));
    expect(s2.fields.at(1)).toBeUndefined();
    expect(s2.fieldChunks.flat()).toEqual(expectedFields([a, b2, d]));
    expect(s2.row("a")).toBe(a);
    expect(s2.row("b")).toBe(b2);
    expect(s2.changed).toEqual(["b"]);
    // The earlier snapshot is untouched.
    expect(s1.row("b")).toBe(b);
    expect(s1.fields.at(1)).toEqual(expectedFields([b])[0]);

    // c and e new, a removed: the others taken over by name.
    const c = row("c");
    const e = row("e");
    const s3 = StatusSnapshot.next(s2, input(["b", "c", "d", "e"], [c, e], ["a"]));
    expect(s3.fieldChunks.flat()).toEqual(expectedFields([b2, c, d, e]));
    expect(s3.fieldsLength).toBe(s3.fieldChunks.flat().reduce((n, f) => n + f.length, 0));
    expect(s3.removed).toEqual(["a"]);
    expect(s3.nodeInsight("a")).toBeUndefined();
    expect(s3.nodeInsight("c")).toEqual(nodeInsightToProto(c.record, c.since));
  });

  it("shares every chunk without a change with the previous snapshot, and packs a chunk's fields into one buffer", () => {
    const names = Array.from({ length: 300 }, (_, i) => `n${String(i).padStart(3, "0")}`);
    const rows = names.map((n) => row(n));
    const s1 = StatusSnapshot.next(undefined, input(names, rows));
    const chunks1 = s1.fieldChunks;
    expect(chunks1).toHaveLength(2); // chunks of 256
    expect(new Set(chunks1[0]!.map((f) => f.buffer)).size).toBe(1);
    const s2 = StatusSnapshot.next(s1, input(names, [row("n001", "changed")]));
    const chunks2 = s2.fieldChunks;
    expect(chunks2[1]).toBe(chunks1[1]); // nodes 256-299 unchanged: the same chunk, the same bytes
    expect(chunks2[0]).not.toBe(chunks1[0]);
    expect(chunks2.flat()).toEqual(expectedFields([rows[0]!, row("n001", "changed"), ...rows.slice(2)]));
    expect(chunks1.flat()).toEqual(expectedFields(rows)); // the earlier snapshot as it was
  });

  it("encodes a field asked for through a later snapshot once, for every snapshot sharing its chunk", () => {
    const s1 = StatusSnapshot.next(undefined, input(["a", "b"], [row("a"), row("b")]));
    const s2 = s1.withFreshness(undefined);
    const [first] = s2.fieldChunks.flat();
    expect(s1.fields.at(0)).toBe(first); // s1 shares the chunk: the same bytes, not encoded again
    expect(s1.fieldChunks.flat()[0]).toBe(first);
  });

  it("refuses a row neither new nor held (the view reports every row it adds)", () => {
    const s1 = StatusSnapshot.next(undefined, input(["a"], [row("a")]));
    expect(() => StatusSnapshot.next(s1, input(["a", "b"], []))).toThrow(/row b is neither new nor held/);
  });

  it("keeps the evaluation's error for every answer, and the status out while not evaluable", () => {
    const s = StatusSnapshot.next(undefined, input(["a"], [row("a")]));
    expect(s.status).toBeUndefined();
    expect(() => s.evaluation()).toThrow(StatusError);
    expect(() => s.render("none")).toThrow(StatusError);
    expect(() => s.statusWithNodes()).toThrow(StatusError);
  });

  it("takes another freshness without rebuilding anything else, and serializes it after the nodes", () => {
    const s1 = StatusSnapshot.next(undefined, input(["a"], [row("a")]));
    const freshness = { ageSeconds: 16, stale: true, maxAgeSeconds: 15, heard: true };
    const s2 = s1.withFreshness(freshness);
    expect(s2.cause).toBe("freshness");
    expect(s2.fields).toBe(s1.fields);
    expect(s2.changed).toEqual([]);
    // As the GetUpdateStatus serializer would write it, with a status stand-in.
    const status = UpdateStatus.fromPartial({ revision: "3" });
    const bytes = encodeStatusAnswer({ encoded: { fieldChunks: s2.fieldChunks, fieldsLength: s2.fieldsLength, freshnessBytes: s2.freshnessBytes, statusBytes: UpdateStatus.encode(status).finish() }, omitNodes: false });
    const decoded = GetUpdateStatusResponse.decode(bytes);
    expect(decoded.freshness).toEqual(freshness);
    expect(decoded.status!.nodes).toEqual([nodeInsightToProto(row("a").record, row("a").since)]);
  });
});
