// The only Kubernetes calls the updater makes, all writes (the state plane is its view): a merge
// patch of one MachineSet's providerSpec, and BootImagePolicy create / status / annotation patches.
// Every conditional write carries the resourceVersion it was decided on. Patches are JSON merge
// patches (the JSON client's only kind), sent without loading client-node.

import { CustomObjectsApi, makeJsonApiClient, Resources, groupOf, versionOf, type KubeConfigLike } from "@lockstep/kube";
import type { JsonObject } from "../bootimages/index.js";

export interface Written {
  readonly resourceVersion: string;
}

export interface BootImageWriter {
  patchMachineSetProviderSpec(namespace: string, name: string, resourceVersion: string, providerSpecPatch: JsonObject): Promise<Written>;
  createPolicy(name: string): Promise<Written>;
  patchPolicyStatus(name: string, resourceVersion: string, status: object): Promise<Written>;
  annotatePolicy(name: string, annotations: Record<string, string>): Promise<Written>;
}

const rvOf = (o: unknown): Written => ({ resourceVersion: String((o as { metadata?: { resourceVersion?: string } })?.metadata?.resourceVersion ?? "") });

export function kubeWriter(kc: KubeConfigLike): BootImageWriter {
  const api = makeJsonApiClient(kc, CustomObjectsApi);
  const ms = Resources.machineSet;
  const bip = Resources.bootImagePolicy;
  const msRef = { group: groupOf(ms), version: versionOf(ms), plural: ms.plural };
  const bipRef = { group: groupOf(bip), version: versionOf(bip), plural: bip.plural };
  return {
    async patchMachineSetProviderSpec(namespace, name, resourceVersion, providerSpecPatch) {
      const body = { metadata: { resourceVersion }, spec: { template: { spec: { providerSpec: { value: providerSpecPatch } } } } };
      return rvOf(await api.patchNamespacedCustomObject({ ...msRef, namespace, name, body }));
    },
    async createPolicy(name) {
      const body = { apiVersion: bip.apiVersion, kind: bip.kind, metadata: { name }, spec: {} };
      return rvOf(await api.createClusterCustomObject({ ...bipRef, body }));
    },
    async patchPolicyStatus(name, resourceVersion, status) {
      const body = { metadata: { resourceVersion }, status };
      return rvOf(await api.patchClusterCustomObjectStatus({ ...bipRef, name, body }));
    },
    async annotatePolicy(name, annotations) {
      return rvOf(await api.patchClusterCustomObject({ ...bipRef, name, body: { metadata: { annotations } } }));
    },
  };
}
