import { describe, expect, it } from "vitest";
import {
  aggregateErrors,
  defaultConditions,
  degradedCondition,
  degradedMessage,
  progressingCondition,
  progressingMessage,
  setCondition,
} from "./conditions.js";

describe("progressingMessage", () => {
  it.each([
    { c: { total: 0, ok: 0, skipped: 0, errored: 0 }, want: "Reconciled 0 of 0 MAPI MachineSets | Reconciled 0 of 0 ControlPlaneMachineSets | Reconciled 0 of 0 CAPI MachineSets | Reconciled 0 of 0 CAPI MachineDeployments" },
    { c: { total: 4, ok: 4, skipped: 0, errored: 0 }, want: "Reconciled 4 of 4 MAPI MachineSets | Reconciled 0 of 0 ControlPlaneMachineSets | Reconciled 0 of 0 CAPI MachineSets | Reconciled 0 of 0 CAPI MachineDeployments" },
    { c: { total: 5, ok: 4, skipped: 2, errored: 1 }, want: "Reconciled 2 of 5 MAPI MachineSets (2 skipped) | Reconciled 0 of 0 ControlPlaneMachineSets | Reconciled 0 of 0 CAPI MachineSets | Reconciled 0 of 0 CAPI MachineDeployments" },
  ])("$want", ({ c, want }) => expect(progressingMessage(c)).toBe(want));
});

describe("degradedMessage", () => {
  it("without errors", () => {
    expect(degradedMessage(0, [])).toBe("0 Degraded MAPI MachineSets | 0 Degraded ControlPlaneMachineSets | 0 Degraded CAPI MachineSets | 0 Degraded CAPI MachineDeployments");
  });
  it("one error", () => {
    expect(degradedMessage(1, ["error syncing MAPI MachineSet a: boom"])).toBe(
      "1 Degraded MAPI MachineSets | 0 Degraded ControlPlaneMachineSets | 0 Degraded CAPI MachineSets | 0 Degraded CAPI MachineDeployments | Error(s): error syncing MAPI MachineSet a: boom",
    );
  });
  it("several errors are bracketed", () => {
    expect(aggregateErrors(["e1", "e2"])).toBe("[e1, e2]");
    expect(degradedMessage(2, ["e1", "e2"])).toMatch(/^2 Degraded MAPI MachineSets .* \| Error\(s\): \[e1, e2\]$/);
  });
});

describe("conditions", () => {
  it("Progressing is True while unfinished, False at the end of a pass", () => {
    expect(progressingCondition({ total: 3, ok: 1, skipped: 0, errored: 1 }, "MAPIMachineSetUpdated")).toMatchObject({ type: "BootImageUpdateProgressing", status: "True", reason: "MAPIMachineSetUpdated" });
    expect(progressingCondition({ total: 3, ok: 2, skipped: 1, errored: 1 }, "x").status).toBe("False");
  });
  it("Degraded follows the errors", () => {
    expect(degradedCondition(0, [], "r").status).toBe("False");
    expect(degradedCondition(1, ["e"], "r")).toMatchObject({ type: "BootImageUpdateDegraded", status: "True" });
  });
  it("defaults are False with reason NA", () => {
    const d = defaultConditions();
    expect([d.progressing.status, d.progressing.reason, d.degraded.status, d.degraded.reason]).toEqual(["False", "NA", "False", "NA"]);
  });
});

describe("setCondition", () => {
  const t0 = new Date("2026-01-01T00:00:00Z");
  const t1 = new Date("2026-01-02T00:00:00Z");
  const a = { type: "BootImageUpdateDegraded", status: "False", reason: "NA", message: "m" };
  it("adds a new condition stamped now", () => {
    expect(setCondition([], a, t0)).toEqual([{ ...a, lastTransitionTime: t0 }]);
  });
  it("keeps the time when nothing changed", () => {
    const list = setCondition([], a, t0);
    expect(setCondition(list, a, t1)[0]?.lastTransitionTime).toEqual(t0);
  });
  it("refreshes the time on a message-only change", () => {
    const list = setCondition([], a, t0);
    expect(setCondition(list, { ...a, message: "m2" }, t1)[0]).toMatchObject({ message: "m2", lastTransitionTime: t1 });
  });
  it("leaves other conditions alone", () => {
    const other = { type: "Other", status: "True", reason: "r", message: "", lastTransitionTime: t0 };
    expect(setCondition([other], a, t1)).toEqual([other, { ...a, lastTransitionTime: t1 }]);
  });
});
