// Which MachineSets are enrolled (mco-behaviors.md §3.4). Lockstep owns the status computation on
// BootImagePolicy, so it follows upstream's computeManagedBootImagesStatus, MachineSets manager only.

import type { BootImagePolicyState, LabelSelector, MachineSetState } from "@lockstep/contracts";
import { compileSelector } from "@lockstep/contracts";
import { isDefaultOnPlatform, type BootImagePlatform } from "./platform.js";

export const MACHINE_API_NAMESPACE = "openshift-machine-api";
export const OPTED_IN_AT_ANNOTATION = "machineconfiguration.openshift.io/boot-image-updates-opted-in-at";

export type SelectionMode = "All" | "Partial" | "None";

export interface ManagedMachineSetsStatus {
  readonly mode: SelectionMode;
  readonly selector?: LabelSelector;
  /** The platform default opted the cluster in just now: stamp OPTED_IN_AT_ANNOTATION. */
  readonly defaultOptIn: boolean;
  /** A spec problem that forced mode None (admission should have prevented it). */
  readonly problem?: string;
}

function isMode(v: string): v is SelectionMode {
  return v === "All" || v === "Partial" || v === "None";
}

export function computeManagedMachineSetsStatus(
  policy: Pick<BootImagePolicyState, "machineSetsMode" | "machineSetsSelector" | "machineSetsStatusMode"> | undefined,
  platform: BootImagePlatform | undefined,
): ManagedMachineSetsStatus {
  const specMode = policy?.machineSetsMode ?? "";
  if (specMode === "") {
    if (!isDefaultOnPlatform(platform)) return { mode: "None", defaultOptIn: false };
    const prev = policy?.machineSetsStatusMode ?? "";
    return { mode: "All", defaultOptIn: prev === "" || prev === "None" };
  }
  if (!isMode(specMode)) return { mode: "None", defaultOptIn: false, problem: `unknown selection mode ${JSON.stringify(specMode)}` };
  const selector = policy?.machineSetsSelector;
  if (specMode === "Partial") {
    if (!selector) return { mode: "None", defaultOptIn: false, problem: "Partial is required when type is partial, and forbidden otherwise" };
    return { mode: "Partial", selector, defaultOptIn: false };
  }
  return { mode: specMode, defaultOptIn: false };
}

export interface Selection {
  /** Enrolled MachineSets in a stable (namespace/name) order. */
  readonly enrolled: readonly MachineSetState[];
  readonly problem?: string;
}

export function selectMachineSets(machineSets: readonly MachineSetState[], status: ManagedMachineSetsStatus): Selection {
  if (status.mode === "None") return { enrolled: [], ...(status.problem ? { problem: status.problem } : {}) };
  let matches: (labels: Readonly<Record<string, string>>) => boolean = () => true;
  if (status.mode === "Partial" && status.selector) {
    const compiled = compileSelector(status.selector);
    if (!compiled.ok) return { enrolled: [], problem: compiled.message };
    matches = compiled.matches;
  }
  const enrolled = machineSets
    .filter((ms) => ms.namespace === MACHINE_API_NAMESPACE && matches(ms.labels))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { enrolled };
}
