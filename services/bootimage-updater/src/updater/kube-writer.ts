// The only Kubernetes calls the updater makes, all writes (the state plane is its view): a merge
// patch of one MachineSet's providerSpec, and BootImagePolicy create / status / annotation patches.
// Every conditional write carries the resourceVersion it was decided on.

import { CustomObjectsApi, PatchStrategy, setHeaderOptions, type KubeConfig } from "@kubernetes/client-node";
import { Resources, groupOf, versionOf } from "@lockstep/kube";
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

const mergePatch = () => setHeaderOptions("Content-Type", PatchStrategy.MergePatch);
const rvOf = (o: unknown): Written => ({ resourceVersion: String((o as { metadata?: { resourceVersion?: string } })?.metadata?.resourceVersion ?? "") });

export function kubeWriter(kc: KubeConfig): BootImageWriter {
  const api = kc.makeApiClient(CustomObjectsApi);
  const ms = Resources.machineSet;
  const bip = Resources.bootImagePolicy;
  const msRef = { group: groupOf(ms), version: versionOf(ms), plural: ms.plural };
  const bipRef = { group: groupOf(bip), version: versionOf(bip), plural: bip.plural };
  return {
    async patchMachineSetProviderSpec(namespace, name, resourceVersion, providerSpecPatch) {
      const body = { metadata: { resourceVersion }, spec: { template: { spec: { providerSpec: { value: providerSpecPatch } } } } };
      return rvOf(await api.patchNamespacedCustomObject({ ...msRef, namespace, name, body }, mergePatch()));
    },
    async createPolicy(name) {
      const body = { apiVersion: bip.apiVersion, kind: bip.kind, metadata: { name }, spec: {} };
      return rvOf(await api.createClusterCustomObject({ ...bipRef, body }));
    },
    async patchPolicyStatus(name, resourceVersion, status) {
      const body = { metadata: { resourceVersion }, status };
      return rvOf(await api.patchClusterCustomObjectStatus({ ...bipRef, name, body }, mergePatch()));
    },
    async annotatePolicy(name, annotations) {
      return rvOf(await api.patchClusterCustomObject({ ...bipRef, name, body: { metadata: { annotations } } }, mergePatch()));
    },
  };
}
