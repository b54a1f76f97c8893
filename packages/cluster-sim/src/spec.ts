// The cluster spec: what the generator builds. Read from YAML or flags, validated once; every
// problem is reported together with its path.
export const PLATFORMS = ["aws", "gcp", "azure", "vsphere"] as const;
export type Platform = (typeof PLATFORMS)[number];

export interface PoolSpec {
  name: string;
  size: number;
  /** Integer or percentage ("10%"); upstream default 1. */
  maxUnavailable: number | string;
  paused: boolean;
  /** Node selector labels; default `node-role.kubernetes.io/<name>: ""`. */
  nodeSelector: Record<string, string>;
}

export interface WorkloadSpec {
  name: string;
  namespace: string;
  pool: string;
  replicas: number;
  /** PodDisruptionBudget; omitted = no PDB. */
  pdb?: { maxUnavailable?: number | string; minAvailable?: number | string };
}

export interface ClusterSpec {
  /** Cluster name; the infrastructure name is `<name>-<5 chars>`. */
  name: string;
  platform: Platform;
  region: string;
  /** Current OpenShift version, e.g. 4.15.3. */
  version: string;
  /** Earlier versions, newest first (ClusterVersion history); the last one is the install version. */
  history: string[];
  channel: string;
  masters: number;
  /** Worker pools (the `worker` pool plus custom pools); `master` is implied. */
  pools: PoolSpec[];
  workloads: WorkloadSpec[];
  /** Version whose boot images the MachineSets use (default: the install version). */
  bootImageVersion: string;
  seed: number;
}

export class SpecError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid cluster spec:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "SpecError";
  }
}

const VERSION_RE = /^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/;
const NAME_RE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DEFAULT_REGION: Record<Platform, string> = { aws: "us-east-2", gcp: "us-central1", azure: "eastus", vsphere: "datacenter-1" };

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

export function parseIntOrPercent(v: unknown): number | string | undefined {
  if (typeof v === "number" && Number.isInteger(v) && v >= 0) return v;
  if (typeof v === "string" && /^\d+%$/.test(v)) return v;
  if (typeof v === "string" && /^\d+$/.test(v)) return Number(v);
  return undefined;
}

/** Validates a cluster spec document (YAML-decoded) and fills defaults. */
export function parseClusterSpec(input: unknown): ClusterSpec {
  const p: string[] = [];
  const d = isObj(input) ? input : {};
  if (!isObj(input)) p.push("cluster: expected an object");
  const str = (k: string, def: string): string => {
    const v = d[k];
    if (v === undefined) return def;
    if (typeof v !== "string" || !v) {
      p.push(`${k}: expected a non-empty string`);
      return def;
    }
    return v;
  };
  const int = (obj: Record<string, unknown>, k: string, def: number, path: string, min = 0): number => {
    const v = obj[k];
    if (v === undefined) return def;
    if (typeof v !== "number" || !Number.isInteger(v) || v < min) {
      p.push(`${path}: expected an integer >= ${min}`);
      return def;
    }
    return v;
  };
  const name = str("name", "sim");
  if (!NAME_RE.test(name)) p.push(`name: "${name}" is not a DNS label`);
  const platform = str("platform", "aws") as Platform;
  if (!PLATFORMS.includes(platform)) p.push(`platform: "${platform}" is not one of ${PLATFORMS.join(", ")}`);
  const region = str("region", DEFAULT_REGION[platform] ?? "us-east-2");
  const version = str("version", "4.15.3");
  if (!VERSION_RE.test(version)) p.push(`version: "${version}" is not an x.y.z version`);
  let history: string[] = [];
  if (d.history !== undefined) {
    if (!Array.isArray(d.history) || d.history.some((v) => typeof v !== "string" || !VERSION_RE.test(v))) p.push("history: expected a list of x.y.z versions");
    else history = d.history as string[];
  }
  const [maj, min] = version.split(".");
  const channel = str("channel", `stable-${maj}.${min}`);
  const masters = int(d, "masters", 3, "masters", 1);
  const pools: PoolSpec[] = [];
  const rawPools = d.pools === undefined ? [{ name: "worker", size: 3 }] : d.pools;
  if (!Array.isArray(rawPools)) p.push("pools: expected a list");
  else
    rawPools.forEach((rp, i) => {
      const path = `pools[${i}]`;
      if (!isObj(rp)) return void p.push(`${path}: expected an object`);
      const pn = typeof rp.name === "string" ? rp.name : "";
      if (!NAME_RE.test(pn)) p.push(`${path}.name: expected a DNS label`);
      if (pn === "master") p.push(`${path}.name: the master pool is implied; use "masters"`);
      if (pools.some((x) => x.name === pn)) p.push(`${path}.name: duplicate pool "${pn}"`);
      const mu = rp.maxUnavailable === undefined ? 1 : parseIntOrPercent(rp.maxUnavailable);
      if (mu === undefined) p.push(`${path}.maxUnavailable: expected an integer or a percentage like "10%"`);
      if (rp.paused !== undefined && typeof rp.paused !== "boolean") p.push(`${path}.paused: expected a boolean`);
      let nodeSelector: Record<string, string> = { [`node-role.kubernetes.io/${pn}`]: "" };
      if (rp.nodeSelector !== undefined) {
        if (!isObj(rp.nodeSelector) || Object.values(rp.nodeSelector).some((v) => typeof v !== "string")) p.push(`${path}.nodeSelector: expected a map of label to string`);
        else nodeSelector = rp.nodeSelector as Record<string, string>;
      }
      pools.push({ name: pn, size: int(rp, "size", 0, `${path}.size`), maxUnavailable: mu ?? 1, paused: rp.paused === true, nodeSelector });
    });
  const workloads: WorkloadSpec[] = [];
  if (d.workloads === undefined) {
    // Default: one replicated app per pool, spread over its nodes, guarded by a PDB of 1.
    for (const pool of pools) {
      if (pool.size === 0) continue;
      workloads.push({ name: `app-${pool.name}`, namespace: "sim-workloads", pool: pool.name, replicas: Math.min(Math.max(2, Math.ceil(pool.size / 2)), 200), pdb: { maxUnavailable: 1 } });
    }
  } else if (!Array.isArray(d.workloads)) p.push("workloads: expected a list");
  else
    d.workloads.forEach((w, i) => {
      const path = `workloads[${i}]`;
      if (!isObj(w)) return void p.push(`${path}: expected an object`);
      const wn = typeof w.name === "string" ? w.name : "";
      if (!NAME_RE.test(wn)) p.push(`${path}.name: expected a DNS label`);
      const pool = typeof w.pool === "string" ? w.pool : "worker";
      if (!pools.some((x) => x.name === pool)) p.push(`${path}.pool: unknown pool "${pool}"`);
      let pdb: WorkloadSpec["pdb"];
      if (w.pdb !== undefined) {
        if (!isObj(w.pdb)) p.push(`${path}.pdb: expected an object`);
        else {
          const mu = w.pdb.maxUnavailable === undefined ? undefined : parseIntOrPercent(w.pdb.maxUnavailable);
          const ma = w.pdb.minAvailable === undefined ? undefined : parseIntOrPercent(w.pdb.minAvailable);
          if ((w.pdb.maxUnavailable !== undefined && mu === undefined) || (w.pdb.minAvailable !== undefined && ma === undefined)) p.push(`${path}.pdb: expected integers or percentages`);
          pdb = mu !== undefined ? { maxUnavailable: mu } : ma !== undefined ? { minAvailable: ma } : { maxUnavailable: 1 };
        }
      }
      workloads.push({ name: wn, namespace: typeof w.namespace === "string" ? w.namespace : "sim-workloads", pool, replicas: int(w, "replicas", 2, `${path}.replicas`), pdb });
    });
  const bootImageVersion = str("bootImageVersion", history.length ? history[history.length - 1]! : version);
  if (!VERSION_RE.test(bootImageVersion)) p.push(`bootImageVersion: "${bootImageVersion}" is not an x.y.z version`);
  const seed = int(d, "seed", 1, "seed");
  if (p.length) throw new SpecError(p);
  return { name, platform, region, version, history, channel, masters, pools, workloads, bootImageVersion, seed };
}

/** maxUnavailable as a node count: integer, or percentage of `total` rounded down; at least 1. */
export function maxUnavailableCount(v: number | string | undefined, total: number): number {
  if (v === undefined) return 1;
  const n = typeof v === "number" ? v : v.endsWith("%") ? Math.floor((Number(v.slice(0, -1)) * total) / 100) : Number(v);
  return Number.isFinite(n) ? Math.max(1, n) : 1;
}
