import { OperationType } from "@lockstep/contracts";

const BY_NAME: Record<string, OperationType> = {
  update: OperationType.OPERATION_TYPE_UPDATE,
  reboot: OperationType.OPERATION_TYPE_REBOOT,
  drain: OperationType.OPERATION_TYPE_DRAIN,
  fence: OperationType.OPERATION_TYPE_FENCE,
  maintenance: OperationType.OPERATION_TYPE_MAINTENANCE,
  deprovision: OperationType.OPERATION_TYPE_DEPROVISION,
  poweroff: OperationType.OPERATION_TYPE_POWER_OFF,
};

export type OperationName = "Update" | "Reboot" | "Drain" | "Fence" | "Maintenance" | "Deprovision" | "PowerOff";

/** "Maintenance", "maintenance", "OPERATION_TYPE_MAINTENANCE" or the enum value; throws a clear error otherwise. */
export function toOperationType(op: OperationType | string): OperationType {
  if (typeof op === "number") return op;
  const key = op.trim().toLowerCase().replace(/^operation_type_/, "").replace(/[_-]/g, "");
  const t = BY_NAME[key];
  if (t === undefined) throw new Error(`unknown operation "${op}" (known: Update, Reboot, Drain, Fence, Maintenance, Deprovision, PowerOff)`);
  return t;
}

const NAMES: Partial<Record<OperationType, OperationName>> = {
  [OperationType.OPERATION_TYPE_UPDATE]: "Update",
  [OperationType.OPERATION_TYPE_REBOOT]: "Reboot",
  [OperationType.OPERATION_TYPE_DRAIN]: "Drain",
  [OperationType.OPERATION_TYPE_FENCE]: "Fence",
  [OperationType.OPERATION_TYPE_MAINTENANCE]: "Maintenance",
  [OperationType.OPERATION_TYPE_DEPROVISION]: "Deprovision",
  [OperationType.OPERATION_TYPE_POWER_OFF]: "PowerOff",
};

/** The operation's name ("Maintenance"), or undefined for UNSPECIFIED and unknown values. */
export function operationNameOf(op: OperationType): OperationName | undefined {
  return NAMES[op];
}
