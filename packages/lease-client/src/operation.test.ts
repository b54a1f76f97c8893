import { OperationType } from "@lockstep/contracts";
import { describe, expect, it } from "vitest";
import { operationNameOf, toOperationType } from "./operation.js";

describe("toOperationType", () => {
  it("accepts names in any case, enum names and values", () => {
    expect(toOperationType("Maintenance")).toBe(OperationType.OPERATION_TYPE_MAINTENANCE);
    expect(toOperationType("power-off")).toBe(OperationType.OPERATION_TYPE_POWER_OFF);
    expect(toOperationType("OPERATION_TYPE_FENCE")).toBe(OperationType.OPERATION_TYPE_FENCE);
    expect(toOperationType(OperationType.OPERATION_TYPE_DRAIN)).toBe(OperationType.OPERATION_TYPE_DRAIN);
  });

  it("rejects unknown names with the list of known ones", () => {
    expect(() => toOperationType("nap")).toThrow(/unknown operation "nap" \(known: Update/);
  });
});

describe("operationNameOf", () => {
  it("names every known operation, the inverse of toOperationType, and nothing else", () => {
    for (const name of ["Update", "Reboot", "Drain", "Fence", "Maintenance", "Deprovision", "PowerOff"] as const) expect(operationNameOf(toOperationType(name))).toBe(name);
    expect(operationNameOf(OperationType.OPERATION_TYPE_UNSPECIFIED)).toBeUndefined();
    expect(operationNameOf(OperationType.UNRECOGNIZED)).toBeUndefined();
  });
});
