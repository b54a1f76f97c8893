// A cluster's objects as the rehearsal reads them, sorted by kind. Pure: any source (a directory of
// YAML dumps, a read-only kubeconfig, a test's generated cluster) ends as a list of API objects.
import type { KubeObject } from "@lockstep/cluster-sim";

export interface RehearsalSnapshot {
  clusterVersion: KubeObject;
  clusterOperators: KubeObject[];
  machineConfigs: KubeObject[];
  pools: KubeObject[];
  nodes: KubeObject[];
  pods: KubeObject[];
  pdbs: KubeObject[];
  /** coordination.k8s.io Leases (Lockstep's node leases and foreign ones: maintenance, fencing). */
  leases: KubeObject[];
  /** Lockstep DisruptionBudgets (budgets and their windows). */
  budgets: KubeObject[];
  /** Lockstep NodeDisruptionPolicies of the cluster (merged over the shipped defaults). */
  nodeDisruptionPolicies: KubeObject[];
  /** Infrastructure `cluster` (platform, topology: the boot image rules read it), when present. */
  infrastructure?: KubeObject | undefined;
  /** Prometheus alerts (`<case>-alerts.json`), as `oc adm upgrade status` reads them, when present. */
  alerts?: unknown;
}

export class SnapshotError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SnapshotError";
  }
}

const KINDS: Record<string, keyof Omit<RehearsalSnapshot, "clusterVersion" | "infrastructure" | "alerts"> | "clusterVersion" | "infrastructure"> = {
  ClusterVersion: "clusterVersion",
  ClusterOperator: "clusterOperators",
  MachineConfig: "machineConfigs",
  MachineConfigPool: "pools",
  Node: "nodes",
  Pod: "pods",
  PodDisruptionBudget: "pdbs",
  Lease: "leases",
  DisruptionBudget: "budgets",
  NodeDisruptionPolicy: "nodeDisruptionPolicies",
  Infrastructure: "infrastructure",
};

/** Sorts objects by kind (others are ignored); exactly one ClusterVersion, at least one pool and node. */
export function snapshotOf(objects: readonly KubeObject[]): RehearsalSnapshot {
  const cvs: KubeObject[] = [];
  let infrastructure: KubeObject | undefined;
  const out: Omit<RehearsalSnapshot, "clusterVersion" | "infrastructure" | "alerts"> = { clusterOperators: [], machineConfigs: [], pools: [], nodes: [], pods: [], pdbs: [], leases: [], budgets: [], nodeDisruptionPolicies: [] };
  for (const o of objects) {
    const part = KINDS[o.kind ?? ""];
    if (part === undefined) continue;
    if (part === "clusterVersion") cvs.push(o);
    else if (part === "infrastructure") infrastructure = o.metadata.name === "cluster" || !infrastructure ? structuredClone(o) : infrastructure;
    else out[part].push(structuredClone(o));
  }
  const problems: string[] = [];
  if (cvs.length !== 1) problems.push(`expected one ClusterVersion, found ${cvs.length}`);
  if (out.pools.length === 0) problems.push("no MachineConfigPool");
  if (out.nodes.length === 0) problems.push("no Node");
  if (problems.length) throw new SnapshotError(`not a cluster snapshot: ${problems.join("; ")}`);
  return { clusterVersion: structuredClone(cvs[0]!), ...out, ...(infrastructure ? { infrastructure } : {}) };
}

const STAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/**
 * The snapshot's own "now": its newest timestamp (a dump has no clock of its own). Used as the
 * rehearsal's start when none is given, so the same snapshot always gives the same forecast.
 */
export function snapshotTime(s: RehearsalSnapshot): Date | undefined {
  let newest = -Infinity;
  const walk = (v: unknown): void => {
    if (typeof v === "string") {
      if (STAMP.test(v)) newest = Math.max(newest, Date.parse(v));
    } else if (Array.isArray(v)) for (const x of v) walk(x);
    else if (v && typeof v === "object") for (const x of Object.values(v)) walk(x);
  };
  walk([s.clusterVersion, s.clusterOperators, s.pools, s.nodes]);
  return Number.isFinite(newest) ? new Date(newest) : undefined;
}
