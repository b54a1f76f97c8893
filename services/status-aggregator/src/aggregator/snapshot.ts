// One immutable snapshot per flush: everything an answer is made of, already encoded where the wire
// needs bytes, with the freshness it was built with. Readers (gRPC handlers, WatchUpdateStatus, the
// Update Status API writer) take the aggregator's current() and never cause a recomputation.
//
// Node rows and their encoded `UpdateStatus.nodes` fields are kept in two chunked arrays in name
// order (chunked.ts). A new snapshot copies only the chunks of rows that changed, so consecutive
// snapshots share every unchanged node's row object and bytes. A changed row's field is encoded when
// an answer first needs it (fieldChunks) and stays in the chunk for every snapshot sharing it: a
// field slot always belongs to the row in the same slot, since rows and fields chunks are copied
// together; a chunk's fields then share one buffer (see pack). Encoding at every flush instead cost a third of the absorbed changes/s (aggregator bench:
// flush every 100, view only, 62,500 -> 43,800/s), for answers asked far less often than flushes.
import { GetUpdateStatusResponse, type NodeInsight, type StateFreshness, UpdateStatus } from "@lockstep/contracts";
import type { ClusterOperator, ClusterVersion, Details, Evaluation, HealthInsight, NodeRecord } from "@lockstep/insights";
import { encodeNodeField, type EncodedStatus } from "../proto/fast-encode.js";
import { nodeInsightToProto, updateStatusToProto } from "../proto/to-proto.js";
import { renderStatus } from "../view/render-status.js";
import { Chunked } from "./chunked.js";

export interface NodeRow {
  record: NodeRecord;
  /** When the row's assessment or phase last changed (Unix ns). */
  since: bigint;
}

/**
 * Why a snapshot was made. flush: rows changed; freshness: the view turned stale or fresh (watchers
 * hear it at once, alone); refresh: an input beside the view changed (alerts, the writer's mode) or
 * the watchers' periodic refresh; tick: only time moved (durations, the view's age), for answers.
 */
export type SnapshotCause = "flush" | "freshness" | "refresh" | "tick";

/** The evaluation of the cluster at the snapshot's time, or why there is none (a StatusError). */
export type Evaluated = { evaluation: Evaluation; extra: readonly HealthInsight[] } | { error: unknown };

export interface SnapshotInput {
  cause: SnapshotCause;
  /** The view's revision (flush counter) the snapshot was built from. */
  revision: number;
  /** The view's row names, in name order (the same array while no row appears or goes). */
  names: readonly string[];
  /** Rows added or changed since the previous snapshot. */
  changed: readonly NodeRow[];
  /** Nodes no longer shown since the previous snapshot. */
  removed: readonly string[];
  evaluated: Evaluated;
  clusterVersion: ClusterVersion | undefined;
  clusterOperators: readonly ClusterOperator[];
  freshness: StateFreshness | undefined;
}

const EMPTY = new Uint8Array(0);

export class StatusSnapshot implements EncodedStatus {
  readonly cause: SnapshotCause;
  readonly revision: number;
  readonly names: readonly string[];
  /** Row of names[i]. */
  readonly rows: Chunked<NodeRow>;
  /** Encoded `UpdateStatus.nodes` field of names[i] (encodeNodeField); undefined until first needed. */
  readonly fields: Chunked<Uint8Array | undefined>;
  private encodedLength: number | undefined;
  /** Names of the rows added or changed, and of those removed, since the previous snapshot. */
  readonly changed: readonly string[];
  readonly removed: readonly string[];
  readonly evaluated: Evaluated;
  /** The status without nodes; undefined while the cluster cannot be evaluated. */
  readonly status: UpdateStatus | undefined;
  readonly statusBytes: Uint8Array;
  readonly freshness: StateFreshness | undefined;
  /** GetUpdateStatusResponse's freshness field, encoded (empty when unknown). */
  readonly freshnessBytes: Uint8Array;
  readonly clusterVersion: ClusterVersion | undefined;
  readonly clusterOperators: readonly ClusterOperator[];
  private readonly rendered = new Map<Details, string>();

  private constructor(i: SnapshotInput, rows: Chunked<NodeRow>, fields: Chunked<Uint8Array | undefined>, status: UpdateStatus | undefined, statusBytes: Uint8Array) {
    this.cause = i.cause;
    this.revision = i.revision;
    this.names = i.names;
    this.rows = rows;
    this.fields = fields;
    this.changed = i.changed.map((r) => r.record.name);
    this.removed = i.removed;
    this.evaluated = i.evaluated;
    this.status = status;
    this.statusBytes = statusBytes;
    this.freshness = i.freshness;
    this.freshnessBytes = i.freshness ? GetUpdateStatusResponse.encode({ status: undefined, freshness: i.freshness }).finish() : EMPTY;
    this.clusterVersion = i.clusterVersion;
    this.clusterOperators = i.clusterOperators;
  }

  /**
   * The snapshot after `prev` (none: the first). Only the changed rows are encoded; the rest are
   * taken from `prev` by name. The status is built and encoded here, once for every reader.
   */
  static next(prev: StatusSnapshot | undefined, i: SnapshotInput): StatusSnapshot {
    const { rows, fields } = nodeArrays(prev, i.names, i.changed);
    let status: UpdateStatus | undefined;
    let statusBytes = EMPTY;
    if ("evaluation" in i.evaluated) {
      status = updateStatusToProto({ evaluation: i.evaluated.evaluation, extra: new Set(i.evaluated.extra), nodes: [], revision: i.revision });
      statusBytes = UpdateStatus.encode(status).finish();
    }
    return new StatusSnapshot(i, rows, fields, status, statusBytes);
  }

  /** This snapshot with another freshness (everything else shared). */
  withFreshness(freshness: StateFreshness | undefined): StatusSnapshot {
    const i: SnapshotInput = {
      cause: "freshness",
      revision: this.revision,
      names: this.names,
      changed: [],
      removed: [],
      evaluated: this.evaluated,
      clusterVersion: this.clusterVersion,
      clusterOperators: this.clusterOperators,
      freshness,
    };
    return new StatusSnapshot(i, this.rows, this.fields, this.status, this.statusBytes);
  }

  /** Every node's field, in chunks, in name order; fields not encoded yet are encoded now, once. */
  get fieldChunks(): readonly (readonly Uint8Array[])[] {
    this.encodeMissing();
    return this.fields.chunks as readonly (readonly Uint8Array[])[];
  }

  /** The bytes of all node fields together. */
  get fieldsLength(): number {
    this.encodeMissing();
    return this.encodedLength!;
  }

  private encodeMissing(): void {
    if (this.encodedLength !== undefined) return;
    let length = 0;
    const { chunks } = this.fields;
    for (let c = 0; c < chunks.length; c++) {
      // Filled in place: a memo of the row in the same slot of the rows chunk shared alike.
      const chunk = chunks[c] as Array<Uint8Array | undefined>;
      if (chunk.includes(undefined)) pack(chunk, this.rows.chunks[c]!);
      for (const f of chunk) length += f!.length;
    }
    this.encodedLength = length;
  }

  /** The evaluation; throws what made the cluster not evaluable (a StatusError). */
  evaluation(): { evaluation: Evaluation; extra: readonly HealthInsight[] } {
    if ("error" in this.evaluated) throw this.evaluated.error;
    return this.evaluated;
  }

  /** The status with its nodes (WatchUpdateStatus's first message); throws while not evaluable. */
  statusWithNodes(): UpdateStatus {
    this.evaluation();
    return { ...this.status!, nodes: this.rows.toArray().map((r) => nodeInsightToProto(r.record, r.since)) };
  }

  /**
   * `lockstep status` text, rendered once per detail level asked for, from this snapshot's
   * evaluation. Its pool summaries sort their rows when first read, from the view: the same rows as
   * the current snapshot's (rows change only in a flush, and every such flush makes a snapshot);
   * readers render current().
   */
  render(details: Details): string {
    let text = this.rendered.get(details);
    if (text === undefined) {
      const { evaluation, extra } = this.evaluation();
      text = renderStatus(evaluation, [...extra], details);
      this.rendered.set(details, text);
    }
    return text;
  }

  row(name: string): NodeRow | undefined {
    const i = indexOf(this.names, name);
    return i < 0 ? undefined : this.rows.at(i);
  }

  /** The insight of names[i]. */
  nodeInsightAt(i: number): NodeInsight {
    const r = this.rows.at(i);
    return nodeInsightToProto(r.record, r.since);
  }

  nodeInsight(name: string): NodeInsight | undefined {
    const r = this.row(name);
    return r && nodeInsightToProto(r.record, r.since);
  }
}

/** Binary search of sorted names (UTF-16 code unit order, as the view sorts them). */
function indexOf(names: readonly string[], name: string): number {
  let lo = 0;
  let hi = names.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (names[mid]! < name) lo = mid + 1;
    else hi = mid;
  }
  return lo < names.length && names[lo] === name ? lo : -1;
}

function encodeRow(r: NodeRow): Uint8Array {
  return encodeNodeField(nodeInsightToProto(r.record, r.since));
}

/**
 * Encodes a chunk's missing fields and moves all of its fields into one buffer of their own, the
 * slots becoming views into it. Fields encoded one by one land in Node's shared 8 KiB pool slabs,
 * and one field still in use keeps its whole slab alive: after a rollout the 10,000 live fields
 * would pin slabs full of dead ones. A chunk's buffer holds only its own live fields.
 */
function pack(chunk: Array<Uint8Array | undefined>, rows: readonly NodeRow[]): void {
  let total = 0;
  for (let k = 0; k < chunk.length; k++) total += (chunk[k] ??= encodeRow(rows[k]!)).length;
  const bytes = Buffer.allocUnsafeSlow(total);
  let at = 0;
  for (let k = 0; k < chunk.length; k++) {
    const f = chunk[k]!;
    bytes.set(f, at);
    chunk[k] = bytes.subarray(at, at + f.length);
    at += f.length;
  }
}

/** The rows and fields of `names`: changed rows' fields to be encoded, the others taken from `prev`. */
function nodeArrays(prev: StatusSnapshot | undefined, names: readonly string[], changed: readonly NodeRow[]): { rows: Chunked<NodeRow>; fields: Chunked<Uint8Array | undefined> } {
  if (prev && names === prev.names) {
    // No row appeared or went: the previous chunks with the changed entries replaced.
    const rows: Array<[number, NodeRow]> = [];
    const fields: Array<[number, undefined]> = [];
    for (const r of changed) {
      const i = indexOf(names, r.record.name);
      if (i < 0) continue;
      rows.push([i, r]);
      fields.push([i, undefined]);
    }
    return { rows: prev.rows.with(rows), fields: prev.fields.with(fields) };
  }
  const byName = new Map(changed.map((r) => [r.record.name, r]));
  const oldNames = prev?.names ?? [];
  const rows = new Array<NodeRow>(names.length);
  const fields = new Array<Uint8Array | undefined>(names.length);
  let j = 0;
  for (let i = 0; i < names.length; i++) {
    const name = names[i]!;
    const fresh = byName.get(name);
    while (j < oldNames.length && oldNames[j]! < name) j++;
    if (fresh || j >= oldNames.length || oldNames[j] !== name) {
      // A row not held before is in `changed` (the view reports every row it adds).
      if (!fresh) throw new Error(`status snapshot: row ${name} is neither new nor held`);
      rows[i] = fresh;
      fields[i] = undefined;
    } else {
      rows[i] = prev!.rows.at(j);
      fields[i] = prev!.fields.at(j);
    }
  }
  return { rows: Chunked.of(rows), fields: Chunked.of(fields) };
}
