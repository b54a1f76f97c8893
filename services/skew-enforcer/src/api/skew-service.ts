// SkewService: the verdicts on demand. Bad input is INVALID_ARGUMENT, an unknown MachineSet
// NOT_FOUND, a query before the state plane is loaded UNAVAILABLE; nothing here can crash the service.
// Every answer carries the view's freshness, and while the view is stale the answers fail closed as
// ClusterOperator lockstep does: Upgradeable False (StateStale), a minor upgrade refused.
import { status, type sendUnaryData, type ServerUnaryCall, type ServiceError } from "@grpc/grpc-js";
import type { BootImagesState, MachineSetState, SkewServiceServer } from "@lockstep/contracts";
import { tryParseOcpVersion } from "@lockstep/versions";
import type { Logger } from "pino";
import { freshnessToProto } from "@lockstep/skeleton";
import { checkScaleUp, checkUpgrade, type SkewEvaluation, staleEvaluation, toSkewReport } from "@lockstep/skew-rules";
import type { ViewFreshness } from "../enforcer/enforcer.js";

/** What the service answers from (the running SkewEnforcer). */
export interface SkewQueries {
  evaluate(): SkewEvaluation;
  viewFreshness(): ViewFreshness;
  machineSet(namespace: string, name: string): MachineSetState | undefined;
  bootImages(): BootImagesState | undefined;
}

class RpcError extends Error {
  constructor(
    readonly code: status,
    message: string,
  ) {
    super(message);
  }
}

// RFC 1123 subdomain (MachineSet names) and label (namespaces).
const SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

function requireName(field: string, value: string, pattern: RegExp, max: number): string {
  const v = value.trim();
  if (v === "") throw new RpcError(status.INVALID_ARGUMENT, `${field} is required`);
  if (v.length > max || !pattern.test(v)) throw new RpcError(status.INVALID_ARGUMENT, `${field} ${JSON.stringify(value)} is not a valid Kubernetes name`);
  return v;
}

function unary<Req, Res>(logger: Logger, method: string, handler: (request: Req) => Res) {
  return (call: ServerUnaryCall<Req, Res>, callback: sendUnaryData<Res>): void => {
    try {
      callback(null, handler(call.request));
    } catch (err) {
      const known = err instanceof RpcError;
      const code = known ? err.code : err instanceof Error && err.name === "NotSyncedError" ? status.UNAVAILABLE : status.INTERNAL;
      const message = err instanceof Error ? err.message : String(err);
      if (code === status.INTERNAL) logger.error({ err, method }, "skew query failed");
      callback(Object.assign(new Error(message), { code, details: message, metadata: undefined }) as unknown as ServiceError, null);
    }
  };
}

function wire(v: ViewFreshness) {
  return v.freshness ? freshnessToProto(v.freshness) : undefined;
}

export function skewServiceImpl(q: SkewQueries, logger: Logger): SkewServiceServer {
  return {
    getSkewReport: unary(logger, "GetSkewReport", () => {
      const e = q.evaluate();
      const v = q.viewFreshness();
      return { report: toSkewReport(v.stale === undefined ? e : staleEvaluation(e, v.stale)), freshness: wire(v) };
    }),
    checkUpgrade: unary(logger, "CheckUpgrade", (req) => {
      const target = req.targetVersion.trim();
      if (target === "") throw new RpcError(status.INVALID_ARGUMENT, "target_version is required");
      const parsed = tryParseOcpVersion(target);
      if (!parsed.ok) throw new RpcError(status.INVALID_ARGUMENT, `target_version: ${parsed.error.message}`);
      const e = q.evaluate();
      const v = q.viewFreshness();
      const r = checkUpgrade(e, target, req.force, v.stale);
      return { allowed: r.allowed, kind: r.kind, reasons: [...r.reasons], message: r.message, forced: r.forced, warnings: [...r.warnings], freshness: wire(v) };
    }),
    checkScaleUp: unary(logger, "CheckScaleUp", (req) => {
      const namespace = requireName("namespace", req.namespace, LABEL, 63);
      const name = requireName("machine_set", req.machineSet, SUBDOMAIN, 253);
      const evaluation = q.evaluate();
      const ms = q.machineSet(namespace, name);
      if (!ms) throw new RpcError(status.NOT_FOUND, `MachineSet ${namespace}/${name} not found`);
      const v = q.viewFreshness();
      const r = checkScaleUp(ms, evaluation.bootImage, q.bootImages(), v.stale);
      return { allowed: r.allowed, reason: r.reason, message: r.message, freshness: wire(v) };
    }),
  };
}
