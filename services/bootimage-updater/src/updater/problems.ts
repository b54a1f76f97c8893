// Problems that belong to no single MachineSet, each tied to the object an admin must fix.

import type { InfrastructureState, ObjectRef } from "@lockstep/contracts";
import type { ControllerProblem } from "./events.js";

/** Infrastructure platform types OpenShift defines (config.openshift.io/v1 PlatformType). */
const KNOWN_PLATFORMS = new Set([
  "AWS", "Azure", "BareMetal", "GCP", "Libvirt", "OpenStack", "None", "VSphere", "oVirt", "IBMCloud", "KubeVirt",
  "EquinixMetal", "PowerVS", "AlibabaCloud", "Nutanix", "External",
]);

export const infrastructureRef = (name: string): ObjectRef => ({ group: "config.openshift.io", version: "v1", kind: "Infrastructure", namespace: "", name, uid: "" });
export const policyRef = (name: string): ObjectRef => ({ group: "lockstep.io", version: "v1alpha1", kind: "BootImagePolicy", namespace: "", name, uid: "" });
export const configMapRef = (namespace: string, name: string): ObjectRef => ({ group: "", version: "v1", kind: "ConfigMap", namespace, name, uid: "" });

/**
 * A platform type OpenShift does not define is a data problem (a typo, a newer API): unlike a known
 * platform without boot image support, which is simply out of scope, it degrades.
 */
export function unknownPlatformError(infra: InfrastructureState | undefined): string | undefined {
  if (!infra || infra.platform === "" || KNOWN_PLATFORMS.has(infra.platform)) return undefined;
  return `Infrastructure ${infra.name || "cluster"} has unknown platform type ${JSON.stringify(infra.platform)}`;
}

export interface ProblemRefs {
  readonly infrastructure: ObjectRef;
  readonly policy: ObjectRef;
  readonly bootImages: ObjectRef;
}

/** Pass errors that are not about one MachineSet (those are `error syncing MAPI MachineSet …`). */
export function controllerProblems(errors: readonly string[], refs: ProblemRefs): ControllerProblem[] {
  return errors
    .filter((e) => !e.startsWith("error syncing MAPI MachineSet "))
    .map((error) => ({
      error,
      object: error.includes("coreos-bootimages") ? refs.bootImages : error.startsWith("Infrastructure ") ? refs.infrastructure : refs.policy,
    }));
}
