// What the watcher watches and how each object becomes a state-plane snapshot.
import { stateKey, type StateKindName } from "@lockstep/contracts";
import { Resources, type ResourceType } from "@lockstep/kube/lite";
import { normalizeClusterOperator, normalizeClusterVersion, normalizeInfrastructure } from "../normalize/cluster.js";
import type { Obj } from "../normalize/common.js";
import { normalizeLease } from "../normalize/lease.js";
import { normalizeMachineConfig } from "../normalize/machine-config.js";
import { normalizeBootImages, normalizeMachineSet, normalizePodDisruptionBudget } from "../normalize/machine-set.js";
import { normalizeNode } from "../normalize/node.js";
import { normalizeBootImagePolicy, normalizeDisruptionBudget, normalizeNodeDisruptionPolicy } from "../normalize/policy.js";
import { normalizePool } from "../normalize/pool.js";

export interface Watched {
  /** Unique name, used in logs and metrics. */
  name: string;
  resource: ResourceType;
  kind: StateKindName;
  namespace?: string;
  fieldSelector?: string;
  normalize(o: Obj): unknown;
}

export interface WatchSettings {
  leaseNamespaces: string[];
  bootImagesNamespace: string;
  bootImagesName: string;
}

export function watchedResources(s: WatchSettings): Watched[] {
  const out: Watched[] = [
    { name: "nodes", resource: Resources.node, kind: "node", normalize: normalizeNode },
    { name: "machineconfigpools", resource: Resources.machineConfigPool, kind: "pool", normalize: normalizePool },
    { name: "machineconfigs", resource: Resources.machineConfig, kind: "machineConfig", normalize: normalizeMachineConfig },
    { name: "clusterversions", resource: Resources.clusterVersion, kind: "clusterVersion", normalize: normalizeClusterVersion },
    { name: "clusteroperators", resource: Resources.clusterOperator, kind: "clusterOperator", normalize: normalizeClusterOperator },
    { name: "infrastructures", resource: Resources.infrastructure, kind: "infrastructure", normalize: normalizeInfrastructure },
    { name: "machinesets", resource: Resources.machineSet, kind: "machineSet", normalize: normalizeMachineSet },
    {
      name: "bootimages",
      resource: Resources.configMap,
      kind: "bootImages",
      namespace: s.bootImagesNamespace,
      fieldSelector: `metadata.name=${s.bootImagesName}`,
      normalize: normalizeBootImages,
    },
    { name: "poddisruptionbudgets", resource: Resources.podDisruptionBudget, kind: "podDisruptionBudget", normalize: normalizePodDisruptionBudget },
    { name: "nodedisruptionpolicies", resource: Resources.nodeDisruptionPolicy, kind: "nodeDisruptionPolicy", normalize: normalizeNodeDisruptionPolicy },
    { name: "bootimagepolicies", resource: Resources.bootImagePolicy, kind: "bootImagePolicy", normalize: normalizeBootImagePolicy },
    { name: "disruptionbudgets", resource: Resources.disruptionBudget, kind: "disruptionBudget", normalize: normalizeDisruptionBudget },
  ];
  for (const ns of s.leaseNamespaces) {
    out.push({ name: `leases/${ns}`, resource: Resources.lease, kind: "lease", namespace: ns, normalize: normalizeLease });
  }
  return out;
}

/** State key of an API object under a watched resource. */
export function keyFor(w: Watched, o: Obj): string {
  const name = o?.metadata?.name ?? "";
  return w.resource.namespaced ? stateKey(w.kind, name, o?.metadata?.namespace ?? "") : stateKey(w.kind, name);
}

/** Whether a state key belongs to this watched resource (for deleting keys of vanished objects). */
export function ownsKey(w: Watched, parsed: { kind: StateKindName; namespace?: string; name: string }, s: WatchSettings): boolean {
  if (parsed.kind !== w.kind) return false;
  if (w.name === "bootimages") return parsed.namespace === s.bootImagesNamespace && parsed.name === s.bootImagesName;
  if (w.namespace !== undefined) return parsed.namespace === w.namespace;
  return true;
}
