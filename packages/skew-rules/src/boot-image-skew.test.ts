import { describe, expect, it } from "vitest";
import type { SkewEnforcementStatus } from "@lockstep/versions";
import { evaluateBootImageSkew, targetBootImageWarning } from "./boot-image-skew.js";
import { cond, settings } from "./fixtures.js";
import { parseSkewSettings } from "./settings.js";

const status = (s: Partial<SkewEnforcementStatus>): SkewEnforcementStatus => ({
  mode: "Manual",
  manualMode: "OCPVersion",
  ocpVersion: "",
  rhcosVersion: "",
  rule: 1,
  ...s,
});
const doneConditions = [cond("BootImageUpdateProgressing", "False"), cond("BootImageUpdateDegraded", "False")];
const evaluate = (s: Partial<SkewEnforcementStatus>, conditions = doneConditions, extra: { platform?: string; topology?: string } = {}) =>
  evaluateBootImageSkew({
    status: status(s),
    policyConditions: conditions,
    currentVersion: "4.22.1",
    docsMinor: "4.22",
    settings: settings(),
    platform: extra.platform ?? "AWS",
    controlPlaneTopology: extra.topology ?? "HighlyAvailable",
  });

const LINK = "https://docs.redhat.com/en/documentation/openshift_container_platform/4.22/html/machine_configuration/mco-update-boot-skew-mgmt";

describe("evaluateBootImageSkew (§4.6–4.7)", () => {
  it("message B, OCP detail, exact upstream text", () => {
    const v = evaluate({ ocpVersion: "4.12.9" });
    expect(v.outcome).toBe("Violation");
    expect(v.message).toBe(
      "Upgrades have been disabled because the cluster is using OCP boot image version 4.12.9, which is below the minimum required version 4.13.0. " +
        `To enable upgrades, please update your boot images or disable boot image skew enforcement by following the documentation at ${LINK}`,
    );
  });

  it("message B, RHCOS detail, with no space before (RHEL version:", () => {
    const v = evaluate({ manualMode: "RHCOSVersion", rhcosVersion: "412.86.202303211731-0" });
    expect(v.message).toBe(
      "Upgrades have been disabled because the cluster is using RHCOS boot image version 412.86.202303211731-0(RHEL version: 8.6), which is below the minimum required RHEL version 9.2. " +
        `To enable upgrades, please update your boot images or disable boot image skew enforcement by following the documentation at ${LINK}`,
    );
  });

  it("message A when Automatic and the updater is degraded", () => {
    const v = evaluate({ mode: "Automatic", ocpVersion: "4.22.1" }, [cond("BootImageUpdateProgressing", "False"), cond("BootImageUpdateDegraded", "True", "1 Degraded MAPI MachineSets | Error(s): boom")]);
    expect(v).toMatchObject({
      outcome: "Violation",
      message: "Upgrades have been disabled due to boot image update failures: boot image controller is degraded: 1 Degraded MAPI MachineSets | Error(s): boom",
    });
  });

  it.each([
    ["Automatic, Progressing missing", { mode: "Automatic" as const, ocpVersion: "4.12.3" }, [], "UpdateProgressing"],
    ["Automatic, Progressing True", { mode: "Automatic" as const, ocpVersion: "4.12.3" }, [cond("BootImageUpdateProgressing", "True")], "UpdateProgressing"],
    ["None", { mode: "None" as const, ocpVersion: "0.0.0" }, doneConditions, "ModeNone"],
    ["nothing recorded", { ocpVersion: "" }, doneConditions, "NothingRecorded"],
  ])("no verdict: %s", (_name, s, conditions, cause) => {
    const v = evaluate(s, conditions);
    expect(v).toMatchObject({ outcome: "NoVerdict", noVerdictCause: cause, message: "", warning: "" });
  });

  it("an unparsable record gives no verdict but a warning", () => {
    const v = evaluate({ manualMode: "RHCOSVersion", rhcosVersion: "9.6.2025102-0" });
    expect(v.outcome).toBe("NoVerdict");
    expect(v.noVerdictCause).toBe("Unparsable");
    expect(v.warning).toContain('RHCOS boot image version "9.6.2025102-0" cannot be parsed');
  });

  it.each([
    ["Automatic and within the limit", { mode: "Automatic" as const, ocpVersion: "4.22.1" }],
    ["Manual at exactly the limit", { ocpVersion: "4.13.0" }],
    ["RHCOS legacy at 9.2", { manualMode: "RHCOSVersion" as const, rhcosVersion: "413.92.202303281804-0" }],
    ["OCP wins over an old RHCOS", { ocpVersion: "4.14.0", rhcosVersion: "48.84.202208021106-0" }],
  ])("within limit: %s", (_name, s) => {
    expect(evaluate(s).outcome).toBe("WithinLimit");
  });

  it("applies the configured limit of the current release", () => {
    const strict = parseSkewSettings({ bootImageLimits: { byMinor: { "4.22": { ocpVersion: "4.16.0", rhelVersion: "9.4" } } } });
    const v = evaluateBootImageSkew({
      status: status({ ocpVersion: "4.15.0" }),
      policyConditions: [],
      currentVersion: "4.22.1",
      docsMinor: "4.22",
      settings: strict,
      platform: "AWS",
      controlPlaneTopology: "HighlyAvailable",
    });
    expect(v.message).toContain("below the minimum required version 4.16.0");
  });

  it.each([
    ["AWS", "HighlyAvailable", 1],
    ["AWS", "SingleReplica", 0],
    ["BareMetal", "HighlyAvailable", 0],
  ])("mode None metric on %s/%s is %d", (platform, topology, metric) => {
    expect(evaluate({ mode: "None" }, [], { platform, topology }).enforcementNoneMetric).toBe(metric);
  });
});

describe("targetBootImageWarning (proactive check)", () => {
  const strictNext = parseSkewSettings({ bootImageLimits: { byMinor: { "4.23": { ocpVersion: "4.16.0", rhelVersion: "9.4" } } } });
  it("warns when the target release's limit would be violated", () => {
    const v = evaluate({ ocpVersion: "4.15.2" });
    expect(v.outcome).toBe("WithinLimit");
    expect(targetBootImageWarning(v, "4.23.0", strictNext)).toBe(
      "The cluster boot image (OCP boot image version 4.15.2) is below the limit 4.16.0 of the target release 4.23: after this update upgrades will be disabled and new machines may fail to join until the boot images are updated",
    );
    expect(targetBootImageWarning(v, "4.22.5", strictNext)).toBeUndefined();
  });
  it("is silent for mode None, a bad target, or an unparsable record", () => {
    expect(targetBootImageWarning(evaluate({ mode: "None", ocpVersion: "4.0.0" }), "4.23.0", strictNext)).toBeUndefined();
    expect(targetBootImageWarning(evaluate({ ocpVersion: "4.15.2" }), "nope", strictNext)).toBeUndefined();
    expect(targetBootImageWarning(evaluate({ ocpVersion: "4.15" }), "4.23.0", strictNext)).toBeUndefined();
  });
});
