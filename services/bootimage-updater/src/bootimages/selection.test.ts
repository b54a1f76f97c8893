import { BootImagePolicyState, LabelSelector, MachineSetState } from "@lockstep/contracts";
import { describe, expect, it } from "vitest";
import { computeManagedMachineSetsStatus, selectMachineSets } from "./selection.js";

const policy = (p: Parameters<typeof BootImagePolicyState.fromPartial>[0]) => BootImagePolicyState.fromPartial(p);

describe("computeManagedMachineSetsStatus", () => {
  it.each([
    { name: "no policy, default-on platform: All, fresh opt-in", p: undefined, platform: "AWS" as const, want: { mode: "All", defaultOptIn: true } },
    { name: "no opinion, previous status None: re-opted in", p: policy({ machineSetsStatusMode: "None" }), platform: "VSphere" as const, want: { mode: "All", defaultOptIn: true } },
    { name: "no opinion, previous status All: not a fresh opt-in", p: policy({ machineSetsStatusMode: "All" }), platform: "GCP" as const, want: { mode: "All", defaultOptIn: false } },
    { name: "no opinion, unsupported platform: None", p: policy({}), platform: undefined, want: { mode: "None", defaultOptIn: false } },
    { name: "explicit None wins over the default", p: policy({ machineSetsMode: "None" }), platform: "AWS" as const, want: { mode: "None", defaultOptIn: false } },
    { name: "explicit All", p: policy({ machineSetsMode: "All", machineSetsStatusMode: "None" }), platform: "Azure" as const, want: { mode: "All", defaultOptIn: false } },
    { name: "Partial without selector", p: policy({ machineSetsMode: "Partial" }), platform: "AWS" as const, want: { mode: "None", problem: "Partial is required when type is partial, and forbidden otherwise" } },
    { name: "unknown mode", p: policy({ machineSetsMode: "Some" }), platform: "AWS" as const, want: { mode: "None", problem: 'unknown selection mode "Some"' } },
  ])("$name", ({ p, platform, want }) => {
    expect(computeManagedMachineSetsStatus(p, platform)).toMatchObject(want);
  });
  it("Partial carries its selector", () => {
    const s = computeManagedMachineSetsStatus(policy({ machineSetsMode: "Partial", machineSetsSelector: { matchLabels: { a: "b" } } }), "AWS");
    expect(s).toMatchObject({ mode: "Partial", selector: { matchLabels: { a: "b" } } });
  });
});

describe("selectMachineSets", () => {
  const ms = (name: string, labels: Record<string, string> = {}, namespace = "openshift-machine-api") => MachineSetState.fromPartial({ name, namespace, labels });
  const sets = [ms("worker-c", { tier: "gpu" }), ms("worker-a"), ms("infra-b", { tier: "infra" }), ms("elsewhere", {}, "default")];
  it("All takes every MachineSet of openshift-machine-api, name-ordered", () => {
    expect(selectMachineSets(sets, { mode: "All", defaultOptIn: false }).enrolled.map((m) => m.name)).toEqual(["infra-b", "worker-a", "worker-c"]);
  });
  it("Partial matches the MachineSet's own labels", () => {
    const selector = LabelSelector.fromPartial({ matchExpressions: [{ key: "tier", operator: "In", values: ["gpu", "infra"] }] });
    expect(selectMachineSets(sets, { mode: "Partial", selector, defaultOptIn: false }).enrolled.map((m) => m.name)).toEqual(["infra-b", "worker-c"]);
  });
  it("None takes nothing and carries the problem", () => {
    expect(selectMachineSets(sets, { mode: "None", defaultOptIn: false, problem: "p" })).toEqual({ enrolled: [], problem: "p" });
  });
  it("an invalid selector takes nothing and says why", () => {
    const selector = LabelSelector.fromPartial({ matchExpressions: [{ key: "tier", operator: "Like" }] });
    const r = selectMachineSets(sets, { mode: "Partial", selector, defaultOptIn: false });
    expect(r.enrolled).toEqual([]);
    expect(r.problem).toMatch(/not a valid operator/);
  });
});
