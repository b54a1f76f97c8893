// Discovery documents (kube-api.md §1): what kubectl and client-node's KubernetesObjectApi need.
import type { Registry } from "./registry.js";
import type { ResourceType } from "./types.js";

export const SERVER_VERSION = {
  major: "1",
  minor: "31",
  gitVersion: "v1.31.0-kube-sim",
  gitCommit: "0000000000000000000000000000000000000000",
  gitTreeState: "clean",
  buildDate: "2026-01-01T00:00:00Z",
  goVersion: "go1.22.0",
  compiler: "gc",
  platform: "linux/amd64",
};

export function apiVersions(hostPort: string): unknown {
  return { kind: "APIVersions", versions: ["v1"], serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress: hostPort }] };
}

function groupDoc(name: string, versions: string[]): unknown {
  const vs = versions.map((v) => ({ groupVersion: `${name}/${v}`, version: v }));
  return { name, versions: vs, preferredVersion: vs[0] };
}

export function apiGroupList(reg: Registry): unknown {
  return {
    kind: "APIGroupList",
    apiVersion: "v1",
    groups: reg
      .groups()
      .filter((g) => g.name !== "")
      .map((g) => groupDoc(g.name, g.versions)),
  };
}

export function apiGroup(reg: Registry, group: string): unknown | undefined {
  const g = reg.groups().find((x) => x.name === group);
  return g && group !== "" ? { kind: "APIGroup", apiVersion: "v1", ...(groupDoc(g.name, g.versions) as object) } : undefined;
}

function resourceRows(t: ResourceType): unknown[] {
  const main: Record<string, unknown> = {
    name: t.plural,
    singularName: t.singular,
    namespaced: t.namespaced,
    kind: t.kind,
    verbs: t.verbs,
  };
  if (t.shortNames.length) main.shortNames = t.shortNames;
  if (t.categories.length) main.categories = t.categories;
  const rows: unknown[] = [main];
  for (const sub of t.subresources) {
    const verbs = sub === "status" ? ["get", "patch", "update"] : sub === "eviction" || sub === "token" ? ["create"] : sub === "finalize" ? ["update"] : ["get"];
    const row: Record<string, unknown> = { name: `${t.plural}/${sub}`, singularName: "", namespaced: t.namespaced, kind: t.kind, verbs };
    if (sub === "eviction") Object.assign(row, { group: "policy", version: "v1", kind: "Eviction" });
    if (sub === "token") Object.assign(row, { group: "authentication.k8s.io", version: "v1", kind: "TokenRequest" });
    rows.push(row);
  }
  return rows;
}

export function apiResourceList(reg: Registry, group: string, version: string): unknown | undefined {
  const types = reg.all().filter((t) => t.group === group && t.versions.includes(version));
  if (types.length === 0 && !(group === "" && version === "v1")) return undefined;
  return {
    kind: "APIResourceList",
    apiVersion: "v1",
    groupVersion: group === "" ? version : `${group}/${version}`,
    resources: types.flatMap(resourceRows),
  };
}
