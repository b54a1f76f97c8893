import type { AcquireRequest } from "@lockstep/contracts";
import type { ClusterIndex } from "./cluster.js";
import type { PolicyConfig } from "./config.js";
import { operationName } from "./operations.js";

/** Every problem with an acquire request (scenario 24); empty when it may be decided on. */
export function validateRequest(req: AcquireRequest, cluster: Pick<ClusterIndex, "node">, policy: PolicyConfig): string[] {
  const errors: string[] = [];
  const holder = typeof req.holder === "string" ? req.holder : "";
  if (holder.trim() === "") errors.push("holder identity is empty");
  else if (holder.startsWith(policy.adminHolderPrefix)) {
    errors.push(`holder identity prefix "${policy.adminHolderPrefix}" is reserved for admin holds written with kubectl`);
  } else if (holder.length > 512) errors.push("holder identity is longer than 512 characters");
  const op = operationName(req.operation);
  if (op === undefined) errors.push(`unknown operation type ${String(req.operation)}`);
  if (typeof req.node !== "string" || req.node === "") errors.push("node is empty");
  else if (cluster.node(req.node) === undefined) errors.push(`node ${req.node} does not exist`);
  const max = op === "Maintenance" ? policy.maxMaintenanceDurationSeconds : policy.maxDurationSeconds;
  if (!Number.isInteger(req.durationSeconds) || req.durationSeconds <= 0) errors.push(`duration ${String(req.durationSeconds)}s must be a positive whole number of seconds`);
  else if (req.durationSeconds > max) errors.push(`duration ${req.durationSeconds}s exceeds the maximum ${max}s per term (renew to hold longer)`);
  if (!Number.isInteger(req.waitSeconds ?? 0) || (req.waitSeconds ?? 0) < 0) errors.push("waitSeconds must be a non-negative whole number");
  return errors;
}
