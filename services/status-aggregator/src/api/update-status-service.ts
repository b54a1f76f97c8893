// UpdateStatusService over the aggregator. Errors are gRPC statuses with clear messages:
// INVALID_ARGUMENT for bad requests, UNAVAILABLE before the initial sync, FAILED_PRECONDITION
// when the cluster cannot be evaluated (no ClusterVersion, ...: the rules' own errors).
import { status as Status, type ServerErrorResponse } from "@grpc/grpc-js";
import type { NodeInsight } from "@lockstep/contracts";
import { DETAILS_VALUES, type Details, StatusError } from "@lockstep/insights";
import type { Logger } from "pino";
import type { Aggregator } from "../aggregator/aggregator.js";
import type { StatusSnapshot } from "../aggregator/snapshot.js";
import type { NodeKeys } from "../view/node-keys.js";
import type { UpdateStatusServer } from "../proto/fast-encode.js";
import { PageTokenError, decodePageToken, encodePageToken } from "./page-token.js";

export const DEFAULT_PAGE_SIZE = 500;
export const MAX_PAGE_SIZE = 5000;
const ASSESSMENTS = ["Degraded", "Unavailable", "Progressing", "Excluded", "Outdated", "Completed"];

export function grpcError(code: Status, details: string): ServerErrorResponse {
  return Object.assign(new Error(details), { code, details });
}

export class RequestError extends Error {}

const NOT_SYNCED = "the status view is not synced with the state plane yet; retry shortly";
class NotSyncedError extends Error {}

/** Maps what a handler threw to a status; unexpected errors are logged and reported as INTERNAL. */
export function toGrpcError(err: unknown, logger: Logger): ServerErrorResponse {
  if (err instanceof NotSyncedError) return grpcError(Status.UNAVAILABLE, NOT_SYNCED);
  if (err instanceof RequestError || err instanceof PageTokenError) return grpcError(Status.INVALID_ARGUMENT, err.message);
  if (err instanceof StatusError) return grpcError(Status.FAILED_PRECONDITION, err.message.trim());
  logger.error({ err }, "update status request failed");
  return grpcError(Status.INTERNAL, "internal error computing the update status");
}

/** The latest snapshot; throws before the initial sync. */
function currentSnapshot(agg: Aggregator): StatusSnapshot {
  const s = agg.synced ? agg.current() : undefined;
  if (!s) throw new NotSyncedError(NOT_SYNCED);
  return s;
}

/** A node's pool and assessment from a snapshot's row, without building its insight. */
function snapshotKeys(s: StatusSnapshot): NodeKeys<number> {
  return { name: (i) => s.names[i]!, pool: (i) => s.rows.at(i).record.pool, assessment: (i) => s.rows.at(i).record.assessment };
}

export function parseDetailsArg(value: string): Details {
  const v = value === "" ? "none" : value;
  if (!(DETAILS_VALUES as readonly string[]).includes(v)) {
    throw new RequestError(`details must be one of ${DETAILS_VALUES.join(", ")} (got ${JSON.stringify(value)})`);
  }
  return v as Details;
}

export interface NodePage<T = NodeInsight> {
  nodes: T[];
  nextPageToken: string;
}


const insightKeys: NodeKeys<NodeInsight> = { name: (n) => n.name, pool: (n) => n.pool, assessment: (n) => n.record?.assessment };

function indices(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}

/** One page of the name-ordered node list, filtered. Pure given the list. */
export function pageNodes<T = NodeInsight>(
  all: readonly T[],
  req: { pool: string; assessment: string; pageSize: number; pageToken: string },
  keys: NodeKeys<T> = insightKeys as unknown as NodeKeys<T>,
): NodePage<T> {
  if (req.assessment !== "" && !ASSESSMENTS.includes(req.assessment)) {
    throw new RequestError(`assessment must be one of ${ASSESSMENTS.join(", ")} (got ${JSON.stringify(req.assessment)})`);
  }
  if (req.pageSize < 0) throw new RequestError(`page_size must not be negative (got ${req.pageSize})`);
  const size = Math.min(req.pageSize === 0 ? DEFAULT_PAGE_SIZE : req.pageSize, MAX_PAGE_SIZE);
  const filter = { pool: req.pool, assessment: req.assessment };
  const after = req.pageToken === "" ? undefined : decodePageToken(req.pageToken, filter).after;
  // Binary search for the first name after the cursor (the list is in name order).
  let lo = 0;
  if (after !== undefined) {
    let hi = all.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (keys.name(all[mid]!) <= after) lo = mid + 1;
      else hi = mid;
    }
  }
  const selected = (n: T): boolean => (req.pool === "" || keys.pool(n) === req.pool) && (req.assessment === "" || keys.assessment(n) === req.assessment);
  const nodes: T[] = [];
  let i = lo;
  for (; i < all.length && nodes.length < size; i++) {
    const n = all[i]!;
    if (selected(n)) nodes.push(n);
  }
  let more = false;
  for (let j = i; j < all.length && !more; j++) more = selected(all[j]!);
  const last = nodes[nodes.length - 1];
  return { nodes, nextPageToken: more && last !== undefined ? encodePageToken({ after: keys.name(last), ...filter }) : "" };
}

/** Every answer is read from the aggregator's current snapshot; nothing here recomputes. */
export function updateStatusService(agg: Aggregator, logger: Logger): UpdateStatusServer {
  return {
    getUpdateStatus(call, callback) {
      try {
        const s = currentSnapshot(agg);
        s.evaluation(); // not evaluable: FAILED_PRECONDITION
        // The snapshot is the answer: updateStatusServiceDefinition serializes it (fast-encode.ts).
        callback(null, { encoded: s, omitNodes: call.request.omitNodes });
      } catch (err) {
        callback(toGrpcError(err, logger));
      }
    },
    listNodeInsights(call, callback) {
      try {
        const s = currentSnapshot(agg);
        const page = pageNodes(indices(s.names.length), call.request, snapshotKeys(s));
        callback(null, { nodes: page.nodes.map((i) => s.nodeInsightAt(i)), nextPageToken: page.nextPageToken, freshness: s.freshness });
      } catch (err) {
        callback(toGrpcError(err, logger));
      }
    },
    renderStatus(call, callback) {
      try {
        const details = parseDetailsArg(call.request.details);
        const s = currentSnapshot(agg);
        callback(null, { text: s.render(details), freshness: s.freshness });
      } catch (err) {
        callback(toGrpcError(err, logger));
      }
    },
    watchUpdateStatus(call) {
      if (!agg.synced) {
        call.emit("error", grpcError(Status.UNAVAILABLE, NOT_SYNCED));
        return;
      }
      const stop = agg.watch(call.request.omitNodes, (message) => {
        if (!call.cancelled) call.write(message);
      });
      const end = () => stop();
      call.on("cancelled", end);
      call.on("close", end);
      call.on("error", end);
    },
  };
}
