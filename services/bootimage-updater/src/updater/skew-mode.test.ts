import { BootImagePolicyState, ClusterVersionState, InfrastructureState } from "@lockstep/contracts";
import { describe, expect, it } from "vitest";
import { effectiveSkewStatus, type SkewModeInputs } from "./skew-mode.js";

const cv = ClusterVersionState.fromPartial({ history: [{ state: "Completed", version: "4.22.1" }, { state: "Completed", version: "4.12.3-rc.1" }] });
const aws = InfrastructureState.fromPartial({ platform: "AWS", controlPlaneTopology: "HighlyAvailable" });
const inputs = (o: Partial<SkewModeInputs> = {}): SkewModeInputs => ({ policy: undefined, infra: aws, clusterVersion: cv, selectionMode: "All", ...o });
const policy = (p: Parameters<typeof BootImagePolicyState.fromPartial>[0]) => BootImagePolicyState.fromPartial({ name: "cluster", ...p });

describe("effectiveSkewStatus (mco-behaviors.md §4.3)", () => {
  it.each([
    { row: 1, name: "Manual spec is copied", i: inputs({ policy: policy({ skewMode: "Manual", skewManualMode: "RHCOSVersion", skewManualRhcosVersion: "9.6.20251023-0" }) }), want: { mode: "Manual", manualMode: "RHCOSVersion", rhcosVersion: "9.6.20251023-0", ocpVersion: "" } },
    { row: 2, name: "None spec", i: inputs({ policy: policy({ skewMode: "None" }) }), want: { mode: "None" } },
    { row: 4, name: "single-node clusters do not scale", i: inputs({ infra: InfrastructureState.fromPartial({ platform: "AWS", controlPlaneTopology: "SingleReplica" }) }), want: { mode: "None" } },
    { row: 5, name: "entering Automatic seeds the install version", i: inputs(), want: { mode: "Automatic", ocpVersion: "4.12.3", rhcosVersion: "" } },
    { row: 5, name: "an existing Automatic record is kept", i: inputs({ policy: policy({ skewStatus: { mode: "Automatic", ocpVersion: "", rhcosVersion: "9.6.20260210-0", manualMode: "" } }) }), want: { mode: "Automatic", ocpVersion: "", rhcosVersion: "9.6.20260210-0" } },
    { row: 6, name: "Partial selection", i: inputs({ selectionMode: "Partial" }), want: { mode: "Manual", manualMode: "OCPVersion", ocpVersion: "4.12.3" } },
    { row: 6, name: "unsupported platform (BareMetal counts as legacy provisioning)", i: inputs({ infra: InfrastructureState.fromPartial({ platform: "BareMetal" }) }), want: { mode: "Manual", ocpVersion: "4.12.3" } },
    { row: 6, name: "Azure Stack Hub", i: inputs({ infra: InfrastructureState.fromPartial({ platform: "Azure", azureCloudName: "AzureStackCloud" }) }), want: { mode: "Manual" } },
  ])("row $row: $name", ({ row, i, want }) => {
    expect(effectiveSkewStatus(i)).toMatchObject({ ...want, row });
  });

  it("a previous Manual status does not carry into Automatic", () => {
    const s = effectiveSkewStatus(inputs({ policy: policy({ skewStatus: { mode: "Manual", manualMode: "OCPVersion", ocpVersion: "4.20.0", rhcosVersion: "" } }) }));
    expect(s).toMatchObject({ mode: "Automatic", ocpVersion: "4.12.3" });
  });

  it("an unreadable ClusterVersion gives 0.0.0, a deliberate violation", () => {
    expect(effectiveSkewStatus(inputs({ clusterVersion: undefined }))).toMatchObject({ mode: "Automatic", ocpVersion: "0.0.0" });
  });
});
