// LeaseService over gRPC: request checks, outcome → response mapping, errors → status codes.
import * as grpc from "@grpc/grpc-js";
import {
  AcquireResponse,
  GetResponse,
  ListResponse,
  PreflightUpgradeResponse,
  ReleaseResponse,
  RenewResponse,
  type LeaseServiceServer,
  type WatchResponse,
} from "@lockstep/contracts";
import type { Logger } from "pino";
import { toNodeLease } from "../policy/index.js";
import type { IndexChange, LeaseIndex } from "../store/lease-index.js";
import { Coordinator, CoordinatorError, type AcquireOutcome } from "./coordinator.js";

/** Longest an Acquire may wait in line (a client wanting longer calls again). */
export const MAX_WAIT_SECONDS = 3600;

export interface LeaseServiceDeps {
  /** The coordinator once the state plane is synced; undefined before (UNAVAILABLE). */
  coordinator(): Coordinator | undefined;
  index(): LeaseIndex | undefined;
  logger: Logger;
}

function status(code: grpc.status, details: string): Partial<grpc.ServiceError> {
  return { code, details, message: details };
}

function toStatus(err: unknown, logger: Logger): Partial<grpc.ServiceError> {
  if (err instanceof CoordinatorError) {
    switch (err.kind) {
      case "invalid":
        return status(grpc.status.INVALID_ARGUMENT, err.message);
      case "refused":
        return status(grpc.status.FAILED_PRECONDITION, err.message);
      case "unavailable":
        return status(grpc.status.UNAVAILABLE, err.message);
      case "cancelled":
        return status(grpc.status.CANCELLED, err.message);
      default:
        return status(grpc.status.INTERNAL, err.message);
    }
  }
  logger.error({ err }, "lease request failed");
  return status(grpc.status.INTERNAL, `internal error: ${err instanceof Error ? err.message : String(err)}`);
}

function need(deps: LeaseServiceDeps): Coordinator {
  const c = deps.coordinator();
  if (!c) throw new CoordinatorError("unavailable", "the lease-coordinator is starting: the state plane is not synced yet; retry");
  return c;
}

function unary<Req, Res>(deps: LeaseServiceDeps, fn: (req: Req, call: grpc.ServerUnaryCall<Req, Res>) => Promise<Res> | Res): grpc.handleUnaryCall<Req, Res> {
  return (call, callback) => {
    Promise.resolve()
      .then(() => fn(call.request, call))
      .then(
        (res) => callback(null, res),
        (err) => callback(toStatus(err, deps.logger) as grpc.ServiceError),
      );
  };
}

export function leaseService(deps: LeaseServiceDeps): LeaseServiceServer {
  return {
    acquire: unary(deps, async (req, call) => {
      if (!Number.isInteger(req.waitSeconds) || req.waitSeconds < 0 || req.waitSeconds > MAX_WAIT_SECONDS) {
        throw new CoordinatorError("invalid", `invalid request: wait_seconds ${req.waitSeconds} must be a whole number 0..${MAX_WAIT_SECONDS}`);
      }
      // Only a request that may wait needs to hear of a cancel: listeners and an AbortController
      // per call cost every plain acquire (and grpc-js emits "cancelled" after answered calls too).
      let out: AcquireOutcome;
      if (req.waitSeconds > 0) {
        const abort = new AbortController();
        const cancel = () => abort.abort();
        call.on("cancelled", cancel);
        out = await need(deps)
          .acquire(req, abort.signal)
          .finally(() => call.off("cancelled", cancel));
      } else {
        out = await need(deps).acquire(req);
      }
      // Built directly: the outcome's objects are fresh per call, fromPartial would only copy them.
      if (out.kind === "granted") return { granted: true, lease: out.lease, warnings: out.warnings, deniedReason: "", current: undefined, retryAfterSeconds: 0, deniedCode: "" };
      return AcquireResponse.fromPartial({ granted: false, deniedCode: out.code, deniedReason: out.reason, current: out.current, retryAfterSeconds: out.retryAfterSeconds, warnings: out.warnings });
    }),
    renew: unary(deps, async (req) => {
      const out = await need(deps).renew({ node: req.node, holder: req.holder });
      if (out.kind === "refused") {
        // A refused renew means the hold is gone, belongs to someone else, or is preempted
        // ("Preempted: preempted by <holder> (<op>) ..."): the holder must stop (and may release).
        throw new CoordinatorError("refused", `${out.code}: ${out.reason}`);
      }
      return RenewResponse.fromPartial({ lease: out.lease });
    }),
    release: unary(deps, async (req) => {
      const out = await need(deps).release({ node: req.node, holder: req.holder });
      if (out.kind === "refused") throw new CoordinatorError("refused", `AlreadyHeld: ${out.reason}`);
      return ReleaseResponse.fromPartial({ released: out.released });
    }),
    get: unary(deps, async (req) => {
      if (!req.node) throw new CoordinatorError("invalid", "invalid request: node is empty");
      return GetResponse.fromPartial({ lease: need(deps).get(req.node) });
    }),
    list: unary(deps, async (req) => ListResponse.fromPartial({ leases: need(deps).list({ operation: req.operation, pool: req.pool }) })),
    preflightUpgrade: unary(deps, async () => PreflightUpgradeResponse.fromPartial(need(deps).preflight())),
    watch: (call) => {
      const index = deps.index();
      if (!deps.coordinator() || !index) {
        call.destroy(toStatus(new CoordinatorError("unavailable", "the lease-coordinator is starting: the state plane is not synced yet; retry"), deps.logger) as grpc.ServiceError);
        return;
      }
      const node = call.request.node;
      const send = (type: string, e: { rec: Parameters<typeof toNodeLease>[0] }) => {
        if (e.rec.kind === "slot" || (node && e.rec.node !== node)) return;
        const msg: WatchResponse = { type, lease: toNodeLease(e.rec) };
        call.write(msg);
      };
      // Current leases first, then every change, so a watcher needs no separate List.
      for (const e of index.all()) send("ADDED", e);
      const off = index.onChange((c: IndexChange) => {
        const e = c.current ?? c.previous;
        if (e) send(c.type, e);
      });
      const stop = () => off();
      call.on("cancelled", stop);
      call.on("close", stop);
      call.on("error", stop);
    },
  };
}
