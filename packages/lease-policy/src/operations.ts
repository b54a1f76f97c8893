import { OperationType } from "@lockstep/contracts";

// Human names used on Lease labels, in DisruptionBudget.operations and in messages.
export type OperationName = "Update" | "Reboot" | "Drain" | "Fence" | "Maintenance" | "Deprovision" | "PowerOff";

export const OPERATION_NAMES: readonly OperationName[] = [
  "Update",
  "Reboot",
  "Drain",
  "Fence",
  "Maintenance",
  "Deprovision",
  "PowerOff",
];

const BY_TYPE = new Map<OperationType, OperationName>([
  [OperationType.OPERATION_TYPE_UPDATE, "Update"],
  [OperationType.OPERATION_TYPE_REBOOT, "Reboot"],
  [OperationType.OPERATION_TYPE_DRAIN, "Drain"],
  [OperationType.OPERATION_TYPE_FENCE, "Fence"],
  [OperationType.OPERATION_TYPE_MAINTENANCE, "Maintenance"],
  [OperationType.OPERATION_TYPE_DEPROVISION, "Deprovision"],
  [OperationType.OPERATION_TYPE_POWER_OFF, "PowerOff"],
]);

const BY_NAME = new Map<string, OperationType>([...BY_TYPE].map(([t, n]) => [n.toLowerCase(), t]));

/** The name of a known operation type, or undefined for UNSPECIFIED/UNRECOGNIZED/out-of-range. */
export function operationName(type: OperationType): OperationName | undefined {
  return BY_TYPE.get(type);
}

/** Parses "Update", "update" or "OPERATION_TYPE_UPDATE"; undefined when unknown. */
export function parseOperation(text: string): OperationType | undefined {
  const key = text.trim().toLowerCase().replace(/^operation_type_/, "").replace(/_/g, "");
  return BY_NAME.get(key);
}

export function isOperationName(text: string): text is OperationName {
  return (OPERATION_NAMES as readonly string[]).includes(text);
}
