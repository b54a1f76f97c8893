// lockstep_bootimage_machineset_patch_failures_total{reason}: MachineSet boot image patches that
// failed for good in a pass (a 409 or 404 is not one: the pass re-plans from a newer snapshot).
// Labelled by a fixed reason, not by MachineSet: the logs and BootImagePolicy status name the
// MachineSet, and a constant label set keeps the series count independent of the cluster.
import { Counter, type Registry } from "prom-client";

export const PATCH_FAILURES_METRIC = "lockstep_bootimage_machineset_patch_failures_total";

/** request: the API refused or failed the patch; template: a vSphere template must be re-imported, which Lockstep cannot do. */
export type PatchFailureReason = "request" | "template";
const REASONS: readonly PatchFailureReason[] = ["request", "template"];

/** The counter on `registry` and the hook the updater calls per failed patch. */
export function patchFailures(registry: Registry): (reason: PatchFailureReason) => void {
  if (registry.getSingleMetric(PATCH_FAILURES_METRIC)) registry.removeSingleMetric(PATCH_FAILURES_METRIC);
  const counter = new Counter({
    name: PATCH_FAILURES_METRIC,
    help: "MachineSet boot image (providerSpec) patches that failed, by reason: request (the API refused or failed it) or template (a vSphere template needs re-importing).",
    labelNames: ["reason"],
    registers: [registry],
  });
  // Both series exist from the start, so increase() sees the first failure.
  for (const reason of REASONS) counter.inc({ reason }, 0);
  return (reason) => counter.inc({ reason });
}
