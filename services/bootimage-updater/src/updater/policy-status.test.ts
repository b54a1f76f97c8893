import { BootImagePolicyState, type Condition } from "@lockstep/contracts";
import { describe, expect, it } from "vitest";
import { degradedCondition, progressingCondition, type MachineSetDecision, type PassCounters } from "../bootimages/index.js";
import { buildPolicyStatus, recordedSkew, snapshotAgrees, type StatusInputs } from "./policy-status.js";
import type { SkewStatus } from "./skew-mode.js";

const automatic: SkewStatus = { mode: "Automatic", manualMode: "", ocpVersion: "4.12.3", rhcosVersion: "", rule: 5 };
const d = (name: string, action: MachineSetDecision["action"], reason = ""): MachineSetDecision => ({ namespace: "openshift-machine-api", name, resourceVersion: "1", platform: "AWS", action, reason, currentImage: "ami-old", targetImage: "ami-new" });
const counters: PassCounters = { total: 2, ok: 2, skipped: 1, errored: 0, patched: 1, upToDate: 0, excluded: 0 };
const inputs = (o: Partial<StatusInputs> = {}): StatusInputs => ({
  generation: 3,
  selection: { mode: "All", defaultOptIn: false },
  skew: automatic,
  skewRecord: { action: "set", ocpVersion: "4.12.3", why: "skips" },
  releaseVersion: "4.22.1",
  result: {
    conditions: { progressing: progressingCondition(counters, "MAPIMachineSetAdded"), degraded: degradedCondition(0, [], "MAPIMachineSetAdded") },
    decisions: [d("a", "patch"), d("b", "skip", "has OwnerReference (MachinePool/p), skipping boot image update")],
    counters,
  },
  ...o,
});
const T0 = new Date("2026-03-01T10:00:00Z");
const T1 = new Date("2026-03-01T11:00:00Z");

describe("recordedSkew (§4.5)", () => {
  it("replaces the whole Automatic record", () => {
    expect(recordedSkew({ ...automatic, ocpVersion: "4.12.3" }, { action: "set", rhcosVersion: "9.6.20260210-0", why: "" })).toMatchObject({ ocpVersion: "", rhcosVersion: "9.6.20260210-0" });
  });
  it("leaves Manual and unchanged records alone", () => {
    const manual: SkewStatus = { mode: "Manual", manualMode: "OCPVersion", ocpVersion: "4.14.0", rhcosVersion: "", rule: 1 };
    expect(recordedSkew(manual, { action: "set", ocpVersion: "4.22.1", why: "" })).toBe(manual);
    expect(recordedSkew(automatic, { action: "unchanged", why: "errors" })).toBe(automatic);
  });
});

describe("buildPolicyStatus", () => {
  it("writes every upstream status field plus per-MachineSet results", () => {
    const { doc } = buildPolicyStatus(inputs({ skewRecord: { action: "set", ocpVersion: "4.22.1", why: "" } }), [], T0);
    expect(doc).toMatchObject({
      observedGeneration: 3,
      managedBootImagesStatus: { machineManagers: [{ resource: "machinesets", apiGroup: "machine.openshift.io", selection: { mode: "All" } }] },
      bootImageSkewEnforcementStatus: { mode: "Automatic", automatic: { ocpVersion: "4.22.1" }, manual: null },
      clusterBootImageVersion: "4.22.1",
      summary: { total: 2, updated: 1, skipped: 1, errored: 0, releaseVersion: "4.22.1" },
    });
    expect(doc.machineSets?.map((m) => [m.name, m.result])).toEqual([["a", "Updated"], ["b", "Skipped"]]);
    expect(doc.conditions?.map((c) => [c.type, c.status, c.lastTransitionTime])).toEqual([
      ["BootImageUpdateProgressing", "False", T0.toISOString()],
      ["BootImageUpdateDegraded", "False", T0.toISOString()],
    ]);
  });

  it("keeps transition times of unchanged conditions and a stable fingerprint", () => {
    const first = buildPolicyStatus(inputs(), [], T0);
    const prev: Condition[] = first.doc.conditions!.map((c) => ({ ...c, lastTransitionTime: new Date(c.lastTransitionTime) }));
    const again = buildPolicyStatus(inputs(), prev, T1);
    expect(again.fingerprint).toBe(first.fingerprint);
    expect(again.doc.conditions?.[0]?.lastTransitionTime).toBe(T0.toISOString());
    const degraded = buildPolicyStatus(inputs({ result: { ...inputs().result!, conditions: { degraded: degradedCondition(1, ["error syncing MAPI MachineSet a: x"], "r") } } }), prev, T1);
    expect(degraded.fingerprint).not.toBe(first.fingerprint);
    expect(degraded.doc.conditions?.find((c) => c.type === "BootImageUpdateDegraded")?.lastTransitionTime).toBe(T1.toISOString());
  });

  it("Partial carries its selector; Manual and None clear the other members", () => {
    const { doc } = buildPolicyStatus(
      inputs({ selection: { mode: "Partial", defaultOptIn: false, selector: { matchLabels: { tier: "gold" }, matchExpressions: [{ key: "zone", operator: "Exists", values: [] }] } }, skew: { mode: "Manual", manualMode: "OCPVersion", ocpVersion: "4.12.3", rhcosVersion: "", rule: 6 } }),
      [],
      T0,
    );
    expect(doc.managedBootImagesStatus.machineManagers[0]?.selection).toEqual({ mode: "Partial", partial: { machineResourceSelector: { matchLabels: { tier: "gold" }, matchExpressions: [{ key: "zone", operator: "Exists" }] } } });
    expect(doc.bootImageSkewEnforcementStatus).toEqual({ mode: "Manual", manual: { mode: "OCPVersion", ocpVersion: "4.12.3" }, automatic: null });
    const none = buildPolicyStatus(inputs({ skew: { mode: "None", manualMode: "", ocpVersion: "", rhcosVersion: "", rule: 2 } }), [], T0).doc;
    expect(none.bootImageSkewEnforcementStatus).toEqual({ mode: "None", automatic: null, manual: null });
    expect(none.clusterBootImageVersion).toBe("");
  });

  it("without a pass result leaves conditions and results out of the patch", () => {
    const { doc } = buildPolicyStatus(inputs({ result: undefined }), [], T0);
    expect(doc.conditions).toBeUndefined();
    expect(doc.machineSets).toBeUndefined();
    expect(doc.bootImageSkewEnforcementStatus).toMatchObject({ mode: "Automatic" });
  });
});

describe("snapshotAgrees", () => {
  const built = buildPolicyStatus(inputs(), [], T0);
  const snapshot = (o: Parameters<typeof BootImagePolicyState.fromPartial>[0] = {}) =>
    BootImagePolicyState.fromPartial({
      name: "cluster",
      machineSetsStatusMode: "All",
      skewStatus: { mode: "Automatic", ocpVersion: "4.12.3" },
      conditions: built.doc.conditions!.map((c) => ({ ...c, lastTransitionTime: new Date(c.lastTransitionTime) })),
      ...o,
    });
  it("agrees when the snapshot shows what would be written", () => {
    expect(snapshotAgrees(snapshot(), built.doc, built.skew)).toBe(true);
  });
  it.each([
    ["no object", undefined],
    ["selection mode", snapshot({ machineSetsStatusMode: "" })],
    ["skew record", snapshot({ skewStatus: { mode: "Automatic", ocpVersion: "4.22.1" } })],
    ["a condition message", snapshot({ conditions: [] })],
  ])("disagrees on %s", (_n, p) => {
    expect(snapshotAgrees(p, built.doc, built.skew)).toBe(false);
  });
});
