import { OperationType } from "@lockstep/contracts";
import { describe, expect, it } from "vitest";
import { toOperationType } from "./operation.js";

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
