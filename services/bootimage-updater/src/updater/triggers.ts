// Which state-plane changes start a full boot image pass, and the event key that becomes the
// conditions' reason (mco-behaviors.md §3.5). Our own status writes on fields the pass does not read
// (conditions, results) start nothing.

import type { BootImagePolicyState, BootImagesState, ClusterVersionState, InfrastructureState, MachineSetState } from "@lockstep/contracts";

export const POLICY_NAME = "cluster";
export const INFRASTRUCTURE_NAME = "cluster";
export const CLUSTER_VERSION_NAME = "version";

export interface Change {
  readonly kind: string;
  readonly namespace?: string | undefined;
  readonly name: string;
  readonly op: "put" | "delete";
  readonly value?: unknown;
  readonly previous?: unknown;
}

export interface TriggerSettings {
  readonly bootImagesNamespace: string;
  readonly bootImagesName: string;
}

const json = (v: unknown) => JSON.stringify(v ?? null);

function sortedEntries(m: Readonly<Record<string, string>> | undefined): string {
  return json(Object.entries(m ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function lifecycle(c: Change, added: string, deleted: string): string | undefined {
  if (c.op === "delete") return deleted;
  if (c.previous === undefined) return added;
  return undefined;
}

function machineSetChanged(a: MachineSetState, b: MachineSetState): boolean {
  return (
    a.providerSpecJson !== b.providerSpecJson ||
    sortedEntries(a.labels) !== sortedEntries(b.labels) ||
    sortedEntries(a.annotations) !== sortedEntries(b.annotations) ||
    sortedEntries(a.templateLabels) !== sortedEntries(b.templateLabels) ||
    json(a.ownerReferences) !== json(b.ownerReferences)
  );
}

function policyChanged(a: BootImagePolicyState, b: BootImagePolicyState): boolean {
  const pick = (p: BootImagePolicyState) =>
    json([p.machineSetsMode, p.machineSetsSelector, p.machineSetsStatusMode, p.skewMode, p.skewManualMode, p.skewManualOcpVersion, p.skewManualRhcosVersion, p.skewStatus]);
  return pick(a) !== pick(b);
}

/** The event key for a change, or undefined when the change cannot alter a pass's outcome. */
export function triggerReason(c: Change, s: TriggerSettings): string | undefined {
  switch (c.kind) {
    case "machineSet": {
      const l = lifecycle(c, "MAPIMachineSetAdded", "MAPIMachineSetDeleted");
      if (l) return l;
      return machineSetChanged(c.previous as MachineSetState, c.value as MachineSetState) ? "MAPIMachineSetUpdated" : undefined;
    }
    case "bootImages": {
      if (c.namespace !== s.bootImagesNamespace || c.name !== s.bootImagesName) return undefined;
      const l = lifecycle(c, "BootImageConfigMapAdded", "BootImageConfigMapDeleted");
      if (l) return l;
      return (c.previous as BootImagesState).resourceVersion !== (c.value as BootImagesState).resourceVersion ? "BootImageConfigMapUpdated" : undefined;
    }
    case "bootImagePolicy": {
      if (c.name !== POLICY_NAME) return undefined;
      const l = lifecycle(c, "BootImageUpdateConfigurationAdded", "BootImageUpdateConfigurationDeleted");
      if (l) return l;
      return policyChanged(c.previous as BootImagePolicyState, c.value as BootImagePolicyState) ? "BootImageUpdateConfigurationUpdated" : undefined;
    }
    case "clusterVersion": {
      if (c.name !== CLUSTER_VERSION_NAME || c.op === "delete") return undefined;
      const now = (c.value as ClusterVersionState).history[0]?.state;
      const before = (c.previous as ClusterVersionState | undefined)?.history[0]?.state;
      return now === "Completed" && before !== "Completed" ? "ClusterVersionStable" : undefined;
    }
    case "infrastructure": {
      // Not an upstream trigger (the platform never changes there); Lockstep re-evaluates when it does.
      if (c.name !== INFRASTRUCTURE_NAME) return undefined;
      const a = c.previous as InfrastructureState | undefined;
      const b = c.value as InfrastructureState | undefined;
      if (!a || !b) return "InfrastructureChanged";
      return a.platform !== b.platform || a.region !== b.region || a.azureCloudName !== b.azureCloudName || a.controlPlaneTopology !== b.controlPlaneTopology || json(a.vsphereFailureDomains) !== json(b.vsphereFailureDomains)
        ? "InfrastructureChanged"
        : undefined;
    }
    default:
      return undefined;
  }
}
