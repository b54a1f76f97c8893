// One human sentence per Lockstep event, naming what happened and to what: the demo's event log and
// `lockstep events` print the same words. Pure.
import { OperationType } from "./gen/lockstep/lease/v1/lease.js";
import type { DecodedEvent } from "./events.js";

const op = (o: OperationType | undefined) => (o === undefined ? "" : OperationType[o]?.replace("OPERATION_TYPE_", "") ?? String(o));

/** One line per event, naming what happened and to what. */
export function describeEvent(e: Pick<DecodedEvent, "type" | "message">): string {
  const m = e.message as any;
  switch (e.type.subject.split(".").slice(3).join(".")) {
    case "lease.granted":
      return `lease granted: ${m.lease?.node} to ${m.lease?.holder} (${op(m.lease?.operation)})${m.warnings?.length ? ` — ${m.warnings.map((w: any) => w.message).join("; ")}` : ""}`;
    case "lease.denied":
      return `lease denied: ${m.node} for ${m.requester} (${op(m.operation)}): ${m.reason}`;
    case "lease.released":
      return `lease released: ${m.lease?.node} by ${m.lease?.holder}`;
    case "lease.expired":
      return `lease expired: ${m.lease?.node} (${m.lease?.holder})`;
    case "lease.preempted":
      return `lease preempted: ${m.lease?.node} from ${m.previous?.holder} to ${m.lease?.holder}: ${m.reason}`;
    case "lease.preemption-withdrawn":
      return `lease preemption withdrawn: ${m.lease?.node}: ${m.reason}`;
    case "warning.raised":
      return `warning: ${m.warning?.message}`;
    case "skew.evaluated":
      return `skew evaluated: upgradeable=${m.report?.upgradeable}${m.report?.reason ? ` (${m.report.reason})` : ""}`;
    case "upgradeable.changed":
      return `upgradeable changed: ${m.upgradeable}${m.reason ? ` — ${m.reason}` : ""}`;
    case "update.completed":
      return `update completed: ${m.version} on every node of ${m.pools?.join(", ")} (${m.nodes} nodes)`;
    case "bootimage.updated":
      return `boot image updated: MachineSet ${m.machineSet?.name} ${m.previousImage} → ${m.image}`;
    case "bootimage.skipped":
      return `boot image skipped: MachineSet ${m.machineSet?.name}: ${m.reason}`;
    case "bootimage.update-failed":
      return `boot image update failed: MachineSet ${m.machineSet?.name}: ${m.error}`;
    case "insight.changed":
      return `node ${m.node} (${m.pool}): ${m.previousAssessment || "-"}/${m.previousPhase || "-"} → ${m.insight?.record?.assessment}/${m.insight?.record?.phase}`;
    default:
      return e.type.subject;
  }
}

