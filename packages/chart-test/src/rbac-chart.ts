// The permissions the rendered chart grants one service account: every rule of every Role and
// ClusterRole bound to it, flattened to (apiGroup, resource, verb) with the resourceNames kept.
import type { Manifest } from "./chart.js";

export interface Grant {
  group: string;
  resource: string;
  verb: string;
  /** Empty = every object of the resource. */
  resourceNames: string[];
  /** Role namespace, or "" for a ClusterRole bound cluster-wide. */
  namespace: string;
}

type Rule = { apiGroups?: string[]; resources?: string[]; verbs?: string[]; resourceNames?: string[] };

export function grantsOf(manifests: Manifest[], serviceAccount: { name: string; namespace: string }): Grant[] {
  const out: Grant[] = [];
  for (const b of manifests.filter((m) => m.kind === "RoleBinding" || m.kind === "ClusterRoleBinding")) {
    const subjects = (b.subjects as Array<{ kind: string; name: string; namespace?: string }>) ?? [];
    if (!subjects.some((s) => s.kind === "ServiceAccount" && s.name === serviceAccount.name && s.namespace === serviceAccount.namespace)) continue;
    const ref = b.roleRef as { kind: string; name: string };
    const role = manifests.find((m) => m.kind === ref.kind && m.metadata.name === ref.name && (ref.kind === "ClusterRole" || m.metadata.namespace === b.metadata.namespace));
    if (!role) continue;
    const namespace = b.kind === "RoleBinding" ? (b.metadata.namespace ?? "") : "";
    for (const rule of (role.rules as Rule[]) ?? [])
      for (const group of rule.apiGroups ?? [])
        for (const resource of rule.resources ?? [])
          for (const verb of rule.verbs ?? []) out.push({ group, resource, verb, resourceNames: rule.resourceNames ?? [], namespace });
  }
  return out;
}
