import { InfrastructureState } from "@lockstep/contracts";
import { describe, expect, it } from "vitest";
import { bootImagePlatform, isDefaultOnPlatform } from "./platform.js";

describe("bootImagePlatform", () => {
  it.each([
    ["AWS", "", "AWS"],
    ["GCP", "", "GCP"],
    ["VSphere", "", "VSphere"],
    ["Azure", "AzurePublicCloud", "Azure"],
    ["Azure", "AzureStackCloud", undefined],
    ["BareMetal", "", undefined],
    ["None", "", undefined],
    ["", "", undefined],
    ["aws", "", undefined],
  ])("%s (%s) → %s", (platform, azureCloudName, want) => {
    const p = bootImagePlatform(InfrastructureState.fromPartial({ platform, azureCloudName }));
    expect(p).toBe(want);
    expect(isDefaultOnPlatform(p)).toBe(want !== undefined);
  });
  it("no Infrastructure means unsupported", () => expect(bootImagePlatform(undefined)).toBeUndefined());
});
