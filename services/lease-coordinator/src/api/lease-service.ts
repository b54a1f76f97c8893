// LeaseService over gRPC: request checks, outcome → response mapping, errors → status codes.
import * as grpc from "@grpc/grpc-js";
import {
  AcquireResponse,
  CancelPreemptionResponse,
  GetResponse,
  ListResponse,
  PreflightUpgradeResponse,
  ReleaseResponse,
  RenewResponse,
  renewRefusalMetadata,
  type LeaseServiceServer,
  type NodeLease,
  type WatchRequest,
  type WatchResponse,
} from "@lockstep/contracts";
import type { Logger } from "pino";
import { freshnessToProto } from "@lockstep/skeleton";
import { holderFor, ownsHolder, type Caller } from "../auth/caller.js";
import { AuthError, type CallCredentials, type LeaseAuth } from "../auth/lease-auth.js";
import { toNodeLease } from "@lockstep/lease-policy";
import type { IndexChange, LeaseIndex } from "../store/lease-index.js";
import { boundsErrors, type BoundedField } from "../coordinator/bounds.js";
import { Coordinator, CoordinatorError, type AcquireOutcome } from "../coordinator/coordinator.js";

/** Longest an Acquire may wait in line (a client wanting longer calls again). */
export const MAX_WAIT_SECONDS = 3600;

export interface LeaseServiceDeps {
  /** The coordinator once the state plane is synced; undefined before (UNAVAILABLE). */
  coordinator(): Coordinator | undefined;
  index(): LeaseIndex | undefined;
  /** Who may call, and what they may do (LEASE_AUTH). */
  auth: LeaseAuth;
  logger: Logger;
}

function status(code: grpc.status, details: string): Partial<grpc.ServiceError> {
  return { code, details, message: details };
}

/** A refused Renew: its text for older clients, its fields in the RenewRefusal trailer. */
class RenewRefused extends CoordinatorError {
  constructor(
    readonly code: string,
    readonly reason: string,
    readonly current: NodeLease | undefined,
  ) {
    super("refused", `${code}: ${reason}`);
  }
}

function toStatus(err: unknown, logger: Logger): Partial<grpc.ServiceError> {
  if (err instanceof RenewRefused) return { ...status(grpc.status.FAILED_PRECONDITION, err.message), metadata: renewRefusalMetadata({ code: err.code, message: err.reason, current: err.current }) };
  if (err instanceof AuthError) return status(err.kind === "unauthenticated" ? grpc.status.UNAUTHENTICATED : grpc.status.PERMISSION_DENIED, err.message);
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

/** The view's age as the answer carries it (absent when the coordinator does not know it). */
function wire(c: Coordinator) {
  const f = c.freshness();
  return f ? freshnessToProto(f) : undefined;
}

function need(deps: LeaseServiceDeps): Coordinator {
  const c = deps.coordinator();
  if (!c) throw new CoordinatorError("unavailable", "the lease-coordinator is starting: the state plane is not synced yet; retry");
  return c;
}

/** The transport's evidence of who is calling: bearer metadata and a verified client certificate. */
function credentialsOf(call: grpc.ServerUnaryCall<unknown, unknown> | grpc.ServerWritableStream<unknown, unknown>): CallCredentials {
  const auth = call.metadata.get("authorization")[0];
  return {
    authorization: typeof auth === "string" ? auth : undefined,
    certificateSubject: call.getAuthContext()?.sslPeerCertificate?.subject,
  };
}

function checkBounds(fields: Partial<Record<BoundedField, string>>): void {
  const errors = boundsErrors(fields);
  if (errors.length > 0) throw new CoordinatorError("invalid", `invalid request: ${errors.join("; ")}`);
}

/** The holder a request acts as (derived from the caller), or PERMISSION_DENIED. */
function actingHolder(caller: Caller, requested: string): string {
  const r = holderFor(caller, requested);
  if (!r.ok) throw new AuthError("forbidden", r.message);
  return r.holder;
}

function unary<Req, Res>(deps: LeaseServiceDeps, fn: (req: Req, caller: Caller, call: grpc.ServerUnaryCall<Req, Res>) => Promise<Res> | Res): grpc.handleUnaryCall<Req, Res> {
  return (call, callback) => {
    Promise.resolve()
      .then(() => deps.auth.authenticate(credentialsOf(call)))
      .then((caller) => fn(call.request, caller, call))
      .then(
        (res) => callback(null, res),
        (err) => callback(toStatus(err, deps.logger) as grpc.ServiceError),
      );
  };
}

export function leaseService(deps: LeaseServiceDeps): LeaseServiceServer {
  return {
    acquire: unary(deps, async (request, caller, call) => {
      checkBounds({ node: request.node, holder: request.holder, reason: request.reason });
      if (!Number.isInteger(request.waitSeconds) || request.waitSeconds < 0 || request.waitSeconds > MAX_WAIT_SECONDS) {
        throw new CoordinatorError("invalid", `invalid request: wait_seconds ${request.waitSeconds} must be a whole number 0..${MAX_WAIT_SECONDS}`);
      }
      const req = { ...request, holder: actingHolder(caller, request.holder) };
      await deps.auth.require(caller, "acquire", req.node, `acquire the lease of ${req.node}`);
      if (req.force) {
        await deps.auth.require(caller, "force", req.node, `preempt the holder of ${req.node} (--force)`);
        deps.logger.info({ subject: caller.subject, holder: req.holder, node: req.node }, "forced lease request authorized");
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
    renew: unary(deps, async (req, caller) => {
      checkBounds({ node: req.node, holder: req.holder });
      const holder = actingHolder(caller, req.holder);
      await deps.auth.require(caller, "acquire", req.node, `renew the lease of ${req.node}`);
      const out = await need(deps).renew({ node: req.node, holder });
      if (out.kind === "refused") {
        // A refused renew means the hold is gone, belongs to someone else, or is preempted
        // ("Preempted: preempted by <holder> (<op>) ..."): the holder must stop (and may release).
        throw new RenewRefused(out.code, out.reason, out.current);
      }
      return RenewResponse.fromPartial({ lease: out.lease });
    }),
    release: unary(deps, async (req, caller) => {
      checkBounds({ node: req.node, holder: req.holder });
      const coordinator = need(deps);
      const holder = releasingHolder(caller, req.holder, () => coordinator.get(req.node)?.holder ?? "");
      if (ownsHolder(caller, holder)) await deps.auth.require(caller, "acquire", req.node, `release the lease of ${req.node}`);
      else {
        await deps.auth.require(caller, "release-any", req.node, `release ${holder}'s lease of ${req.node}`);
        deps.logger.info({ subject: caller.subject, holder, node: req.node }, "release of another holder's lease authorized");
      }
      const out = await coordinator.release({ node: req.node, holder });
      if (out.kind === "refused") throw new CoordinatorError("refused", `AlreadyHeld: ${out.reason}`);
      return ReleaseResponse.fromPartial({ released: out.released });
    }),
    cancelPreemption: unary(deps, async (req, caller) => {
      checkBounds({ node: req.node, holder: req.holder });
      if (!req.node) throw new CoordinatorError("invalid", "invalid request: node is empty");
      const coordinator = need(deps);
      // The preemptor is the caller (under any of its suffixes), as for a release; withdrawing
      // another's preemption needs release-any, the right to end another's claim on the node.
      const preemptor = releasingHolder(caller, req.holder, () => coordinator.get(req.node)?.preemption?.holder ?? "");
      if (ownsHolder(caller, preemptor)) await deps.auth.require(caller, "acquire", req.node, `withdraw your preemption of ${req.node}`);
      else {
        await deps.auth.require(caller, "release-any", req.node, `withdraw ${preemptor}'s preemption of ${req.node}`);
        deps.logger.info({ subject: caller.subject, preemptor, node: req.node }, "withdrawal of another's preemption authorized");
      }
      const out = await coordinator.cancelPreemption({ node: req.node, holder: preemptor });
      if (out.kind === "refused") throw new CoordinatorError("refused", `NotPreemptor: ${out.reason}`);
      return CancelPreemptionResponse.fromPartial({ cancelled: out.cancelled, lease: out.lease });
    }),
    get: unary(deps, async (req, caller) => {
      checkBounds({ node: req.node });
      if (!req.node) throw new CoordinatorError("invalid", "invalid request: node is empty");
      await deps.auth.require(caller, "get", req.node, `read the lease of ${req.node}`);
      const c = need(deps);
      return GetResponse.fromPartial({ lease: c.get(req.node), freshness: wire(c) });
    }),
    list: unary(deps, async (req, caller) => {
      checkBounds({ pool: req.pool });
      await deps.auth.require(caller, "list", "", "list node leases");
      const c = need(deps);
      return ListResponse.fromPartial({ leases: c.list({ operation: req.operation, pool: req.pool }), freshness: wire(c) });
    }),
    preflightUpgrade: unary(deps, async (req, caller) => {
      checkBounds({ targetVersion: req.targetVersion });
      await deps.auth.require(caller, "list", "", "read the upgrade preflight (it lists node leases)");
      const c = need(deps);
      return PreflightUpgradeResponse.fromPartial({ ...c.preflight(), freshness: wire(c) });
    }),
    watch: (call) => {
      Promise.resolve()
        .then(async () => {
          checkBounds({ node: call.request.node });
          const caller = await deps.auth.authenticate(credentialsOf(call));
          await deps.auth.require(caller, "watch", call.request.node, call.request.node ? `watch the lease of ${call.request.node}` : "watch node leases");
        })
        .then(
          () => streamLeases(deps, call),
          (err) => call.destroy(toStatus(err, deps.logger) as grpc.ServiceError),
        );
    },
  };
}

/**
 * The holder a Release acts on: the named one, or — when none is named — the node's current holder
 * if that is the caller's own (so `lockstep lease release NODE` frees your lease under any suffix),
 * else the caller's subject. With auth `none` the name is taken as it is.
 */
function releasingHolder(caller: Caller, requested: string, currentHolder: () => string): string {
  if (caller.method === "none" || requested !== "") return requested;
  const current = currentHolder();
  return current !== "" && ownsHolder(caller, current) ? current : caller.subject;
}

function streamLeases(deps: LeaseServiceDeps, call: grpc.ServerWritableStream<WatchRequest, WatchResponse>): void {
  if (call.cancelled) return; // gone while it was being authorized
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
}
