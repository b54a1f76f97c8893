import { describe, expect, it } from "vitest";
import { effectiveSkewStatus, installVersion, machineSetsMode, platformSupportsBootImageUpdates, type PlatformInfo, type SkewPolicyInfo, type VersionHistory } from "./skew-mode.js";

const history = (...entries: string[]): VersionHistory => ({
  history: entries.map((e) => {
    const [version, state] = e.split(":");
    return { version: version!, state: state! };
  }),
});
const infrastructure = (platform: string, extra: Partial<PlatformInfo> = {}): PlatformInfo => ({ platform, controlPlaneTopology: "HighlyAvailable", azureCloudName: "", ...extra });
const policy = (fields: Partial<SkewPolicyInfo> = {}): SkewPolicyInfo => ({
  skewMode: "",
  skewManualMode: "",
  skewManualOcpVersion: "",
  skewManualRhcosVersion: "",
  skewStatus: undefined,
  machineSetsMode: "",
  machineSetsStatusMode: "",
  ...fields,
});
const cv = history("4.22.1:Completed", "4.16.0-ec.3:Completed");

describe("installVersion (§4.3)", () => {
  it.each([
    ["oldest Completed entry", ["4.18.2:Completed", "4.17.9:Completed", "4.16.0-ec.3:Completed", "4.15.0:Partial"], "4.16.0"],
    ["no Completed entry: the oldest", ["4.16.1:Partial", "4.16.0:Partial"], "4.16.0"],
    ["single entry", ["4.12.3:Completed"], "4.12.3"],
    ["pre-release normalised", ["4.22.1:Completed", "4.12.3-rc.1:Completed"], "4.12.3"],
    ["unparsable: 0.0.0, not a crash", ["garbage:Completed"], "0.0.0"],
    ["no history: 0.0.0", [], "0.0.0"],
  ])("%s", (_name, entries, expected) => {
    expect(installVersion(history(...entries))).toBe(expected);
  });
  it("is 0.0.0 without a ClusterVersion", () => {
    expect(installVersion(undefined)).toBe("0.0.0");
  });
});

describe("effectiveSkewStatus (§4.3, first matching row wins)", () => {
  it.each([
    [
      "1: spec Manual (OCP) wins over everything",
      policy({ skewMode: "Manual", skewManualMode: "OCPVersion", skewManualOcpVersion: "4.19.0" }),
      infrastructure("AWS", { controlPlaneTopology: "SingleReplica" }),
      undefined,
      { mode: "Manual", manualMode: "OCPVersion", ocpVersion: "4.19.0", rhcosVersion: "", rule: 1 },
    ],
    [
      "1: spec Manual (RHCOS)",
      policy({ skewMode: "Manual", skewManualMode: "RHCOSVersion", skewManualRhcosVersion: "9.6.20251023-0", skewManualOcpVersion: "4.1.0" }),
      infrastructure("GCP"),
      undefined,
      { mode: "Manual", manualMode: "RHCOSVersion", ocpVersion: "", rhcosVersion: "9.6.20251023-0", rule: 1 },
    ],
    ["2: spec None", policy({ skewMode: "None" }), infrastructure("AWS"), undefined, { mode: "None", rule: 2 }],
    ["3: BareMetal, not legacy", undefined, infrastructure("BareMetal"), false, { mode: "None", rule: 3 }],
    ["3 skipped: BareMetal with unknown provisioning counts as legacy → row 6", undefined, infrastructure("BareMetal"), undefined, { mode: "Manual", manualMode: "OCPVersion", ocpVersion: "4.16.0", rule: 6 }],
    ["4: single node", undefined, infrastructure("AWS", { controlPlaneTopology: "SingleReplica" }), undefined, { mode: "None", rule: 4 }],
    ["5: AWS default All → Automatic seeded with install version", undefined, infrastructure("AWS"), undefined, { mode: "Automatic", ocpVersion: "4.16.0", rhcosVersion: "", rule: 5 }],
    [
      "5: existing Automatic record is kept",
      policy({ skewStatus: { mode: "Automatic", ocpVersion: "", rhcosVersion: "9.6.20260210-0" } }),
      infrastructure("VSphere"),
      undefined,
      { mode: "Automatic", ocpVersion: "", rhcosVersion: "9.6.20260210-0", rule: 5 },
    ],
    [
      "5: re-entering from Manual re-seeds with the install version",
      policy({ skewStatus: { mode: "Manual", ocpVersion: "4.21.0", rhcosVersion: "" } }),
      infrastructure("Azure"),
      undefined,
      { mode: "Automatic", ocpVersion: "4.16.0", rule: 5 },
    ],
    ["6: Partial selection", policy({ machineSetsMode: "Partial" }), infrastructure("AWS"), undefined, { mode: "Manual", ocpVersion: "4.16.0", rule: 6 }],
    ["6: status says None although spec says All (status wins)", policy({ machineSetsMode: "All", machineSetsStatusMode: "None" }), infrastructure("GCP"), undefined, { mode: "Manual", rule: 6 }],
    ["6: Azure Stack Hub is unsupported", undefined, infrastructure("Azure", { azureCloudName: "AzureStackCloud" }), undefined, { mode: "Manual", rule: 6 }],
    ["6: unsupported platform", undefined, infrastructure("OpenStack"), undefined, { mode: "Manual", ocpVersion: "4.16.0", rule: 6 }],
  ])("%s", (_name, pol, infra, legacy, expected) => {
    expect(effectiveSkewStatus({ policy: pol, infrastructure: infra, clusterVersion: cv, bareMetalLegacyProvisioning: legacy })).toMatchObject(expected);
  });

  it("takes the selection mode of the pass over the policy's when given", () => {
    const p = policy({ machineSetsStatusMode: "None" });
    expect(effectiveSkewStatus({ policy: p, infrastructure: infrastructure("AWS"), clusterVersion: cv, selectionMode: "All" })).toMatchObject({ mode: "Automatic", rule: 5 });
    expect(effectiveSkewStatus({ policy: undefined, infrastructure: infrastructure("AWS"), clusterVersion: cv, selectionMode: "Partial" })).toMatchObject({ mode: "Manual", rule: 6 });
  });

  it("uses 0.0.0, a deliberate violation, when ClusterVersion is missing", () => {
    expect(effectiveSkewStatus({ policy: undefined, infrastructure: infrastructure("None"), clusterVersion: undefined })).toMatchObject({ mode: "Manual", ocpVersion: "0.0.0" });
    expect(effectiveSkewStatus({ policy: undefined, infrastructure: infrastructure("AWS"), clusterVersion: undefined })).toMatchObject({ mode: "Automatic", ocpVersion: "0.0.0" });
  });
});

describe("platform support and selection", () => {
  it.each([
    ["AWS", "", true],
    ["GCP", "", true],
    ["VSphere", "", true],
    ["Azure", "AzurePublicCloud", true],
    ["Azure", "AzureStackCloud", false],
    ["BareMetal", "", false],
    ["", "", false],
  ])("%s (%s) supported=%s", (platform, cloud, expected) => {
    expect(platformSupportsBootImageUpdates(infrastructure(platform, { azureCloudName: cloud }))).toBe(expected);
  });
  it("takes status, then spec, then the platform default", () => {
    expect(machineSetsMode(policy({ machineSetsMode: "Partial", machineSetsStatusMode: "All" }), infrastructure("AWS"))).toBe("All");
    expect(machineSetsMode(policy({ machineSetsMode: "Partial" }), infrastructure("AWS"))).toBe("Partial");
    expect(machineSetsMode(undefined, infrastructure("AWS"))).toBe("All");
    expect(machineSetsMode(undefined, infrastructure("OpenStack"))).toBe("None");
  });
});
