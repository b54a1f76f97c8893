// The evaluation: everything the renderer (and the aggregator's API) needs, computed once (spec §14).

export type NodePhase = "Draining" | "Updating" | "Rebooting" | "Paused" | "Pending" | "Updated";
export type NodeAssessment = "Degraded" | "Unavailable" | "Progressing" | "Excluded" | "Outdated" | "Completed";
export type PoolAssessment = "Completed" | "Pending" | "Degraded" | "Excluded" | "Progressing";
export type ControlPlaneAssessment = "Progressing" | "Progressing - Slow" | "Stalled" | "Completed";
export type ScopeType = "ControlPlane" | "WorkerPool" | "Cluster";
export type InsightLevel = "Info" | "Warning" | "Error" | "Critical";
export type ImpactType =
  | "None"
  | "Unknown"
  | "API Availability"
  | "Cluster Capacity"
  | "Application Availability"
  | "Application Outage"
  | "Data Loss"
  | "Update Speed"
  | "Update Stalled";

/** The aggregator's internal node record: raw flags plus display strings (spec §13.6). */
export interface NodeRecord {
  name: string;
  pool: string;
  scopeType: "ControlPlane" | "WorkerPool";
  assessment: NodeAssessment;
  phase: NodePhase;
  /** currentVersion; "" when unknown (printed as `?`). */
  version: string;
  /** EST cell: `+10m`, `+5m`, `-` or `?`. */
  estimate: string;
  /** MESSAGE cell, node name replaced by `<node>`; may be multi-line. */
  message: string;
  isUpdated: boolean;
  isUpdating: boolean;
  isUnavailable: boolean;
  isDegraded: boolean;
  isDraining: boolean;
  /** Unavailability reasons joined (reason string), "" when none. */
  unavailableReason: string;
  /** Earliest transition of the unavailability reasons (Unix ns), ZERO_TIME when none. */
  unavailableSince: bigint;
  /** MCD reason annotation (full text, no substitution). */
  degradedReason: string;
}

export interface NodeCounters {
  total: number;
  available: number;
  progressing: number;
  outdated: number;
  draining: number;
  excluded: number;
  degraded: number;
  updated: number;
  pending: number;
}

export interface PoolSummary {
  name: string;
  scopeType: "ControlPlane" | "WorkerPool";
  paused: boolean;
  assessment: PoolAssessment;
  /** updated / total × 100; NaN for an empty pool. */
  completion: number;
  counters: NodeCounters;
  empty: boolean;
  /** Node records in table order (§6.1). */
  nodes: NodeRecord[];
}

export interface InsightResource {
  kind: string;
  group?: string;
  namespace?: string;
  name: string;
}

export interface HealthInsight {
  /** Unix ns; ZERO_TIME when unknown (SINCE `-`). */
  startedAt: bigint;
  scopeType: ScopeType;
  resources: InsightResource[];
  level: InsightLevel;
  impact: ImpactType;
  summary: string;
  description: string;
  reference: string;
}

export interface UpdatingOperator {
  name: string;
  reason: string;
  message: string;
  /** Progressing lastTransitionTime (Unix ns). */
  since: bigint;
}

export interface OperatorSummary {
  total: number;
  updated: number;
  waiting: number;
  unavailable: number;
  degraded: number;
  updating: UpdatingOperator[];
}

export interface ControlPlaneSummary {
  assessment: ControlPlaneAssessment;
  completed: boolean;
  /** history[0].version or `unknown`. */
  targetVersion: string;
  /** The Target Version line text (§9.3). */
  targetVersionText: string;
  operators: OperatorSummary;
  /** Updated / Total × 100. */
  completion: number;
  /** Duration (rounded, ns). */
  duration: bigint;
  completionAt: bigint;
  estTimeToComplete: bigint;
  estDuration: bigint;
  multiArch: boolean;
}

export interface HealthSection {
  /** Filtered and sorted; when `fallback` is true this holds the single Info insight. */
  insights: HealthInsight[];
  fallback: boolean;
}

export interface Evaluation {
  now: bigint;
  /** The "not updating" gate of §4.3 applies: the whole output is one line. */
  notUpdating: boolean;
  controlPlane: ControlPlaneSummary;
  /** The master pool, when one exists. */
  masterPool: PoolSummary | undefined;
  /** Non-master pools in pool-list order. */
  workerPools: PoolSummary[];
  health: HealthSection;
}
