// Snapshot: the cluster as the status fixtures' file set (<case>-cv.yaml, -co, -mc, -mcp, -node as
// `v1 List`s, as `oc get -o yaml` prints them), so simulated states feed the status rules.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { stringify } from "yaml";
import type { KubeObject } from "./types.js";

export interface ClusterSnapshot {
  cv: KubeObject[];
  co: KubeObject[];
  mc: KubeObject[];
  mcp: KubeObject[];
  node: KubeObject[];
}

export const SNAPSHOT_PARTS = ["cv", "co", "mc", "mcp", "node"] as const;

const byName = (a: KubeObject, b: KubeObject) => (a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0);

export function snapshotOf(objs: { cv: KubeObject[]; co: KubeObject[]; mc: KubeObject[]; mcp: KubeObject[]; node: KubeObject[] }): ClusterSnapshot {
  const clean = (o: KubeObject) => structuredClone(o);
  return {
    cv: objs.cv.map(clean),
    co: objs.co.map(clean).sort(byName),
    mc: objs.mc.map(clean).sort(byName),
    // Pool order as upstream lists them: master, worker, then custom pools.
    mcp: objs.mcp.map(clean).sort((a, b) => rank(a) - rank(b) || byName(a, b)),
    node: objs.node.map(clean).sort(byName),
  };
}

const rank = (p: KubeObject) => (p.metadata.name === "master" ? 0 : p.metadata.name === "worker" ? 1 : 2);

export function listDocument(items: KubeObject[]): Record<string, unknown> {
  return { apiVersion: "v1", items, kind: "List", metadata: { resourceVersion: "" } };
}

/** The snapshot as the list documents `oc adm upgrade status` reads (@lockstep/insights' inputsFromDocuments). */
export function snapshotDocuments(snap: ClusterSnapshot): { clusterVersion: unknown; clusterOperators: unknown; machineConfigPools: unknown; machineConfigs: unknown; nodes: unknown } {
  return {
    clusterVersion: listDocument(snap.cv),
    clusterOperators: listDocument(snap.co),
    machineConfigPools: listDocument(snap.mcp),
    machineConfigs: listDocument(snap.mc),
    nodes: listDocument(snap.node),
  };
}

/** Writes `<dir>/<case>-{cv,co,mc,mcp,node}.yaml`; returns the paths. */
export async function writeSnapshot(dir: string, caseName: string, snap: ClusterSnapshot): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const paths: string[] = [];
  for (const part of SNAPSHOT_PARTS) {
    const p = join(dir, `${caseName}-${part}.yaml`);
    await writeFile(p, stringify(listDocument(snap[part]), { lineWidth: 0 }));
    paths.push(p);
  }
  return paths;
}
