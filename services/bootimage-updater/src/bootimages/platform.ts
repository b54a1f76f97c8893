// Which platforms the boot image controller supports, and their defaults (mco-behaviors.md §3.2).

import type { InfrastructureState } from "@lockstep/contracts";

export type BootImagePlatform = "AWS" | "GCP" | "Azure" | "VSphere";

const SUPPORTED: readonly BootImagePlatform[] = ["AWS", "GCP", "Azure", "VSphere"];

/** The supported platform of this cluster, or undefined (Azure Stack Hub and every other platform). */
export function bootImagePlatform(infra: Pick<InfrastructureState, "platform" | "azureCloudName"> | undefined): BootImagePlatform | undefined {
  if (!infra) return undefined;
  const p = SUPPORTED.find((s) => s === infra.platform);
  if (p === "Azure" && infra.azureCloudName === "AzureStackCloud") return undefined;
  return p;
}

/** Every supported platform defaults MachineSets to All in main (opt-out). */
export function isDefaultOnPlatform(platform: BootImagePlatform | undefined): boolean {
  return platform !== undefined;
}

/** The providerSpec kind each platform's MachineSets carry. */
export const PROVIDER_SPEC_KIND: Readonly<Record<BootImagePlatform, string>> = {
  AWS: "AWSMachineProviderConfig",
  GCP: "GCPMachineProviderSpec",
  Azure: "AzureMachineProviderSpec",
  VSphere: "VSphereMachineProviderSpec",
};
