// The OpenShift Update Status API (group update.openshift.io, v1alpha1) as Lockstep writes it (the
// status-aggregator's update-api/) and reads it (`lockstep status --from-api`): the shape of
// openshift/api PR 2233 (commit bb998d952ce9b1b6bf0379c27a9e90f867f1f6d4), five cluster-scoped
// kinds, each a status-only object named after its subject. Only the fields Lockstep fills are
// typed; the CRDs in deploy/helm/lockstep/crds hold the full schemas. One copy for both sides.

export const UPDATE_GROUP = "update.openshift.io";
export const UPDATE_VERSION = "v1alpha1";
export const UPDATE_API_VERSION = `${UPDATE_GROUP}/${UPDATE_VERSION}`;

/** Label on every object Lockstep writes: it lists, updates and deletes only objects carrying it. */
export const MANAGED_BY_LABEL = "app.kubernetes.io/managed-by";
export const MANAGED_BY = "lockstep-status-aggregator";
/** Annotation on the CRDs Lockstep ships; a CRD without it belongs to someone else (the CVO). */
export const CRD_OWNER_ANNOTATION = "lockstep.io/crd-owner";
export const CRD_OWNER = "lockstep";

export type InsightKind =
  | "NodeProgressInsight"
  | "MachineConfigPoolProgressInsight"
  | "ClusterVersionProgressInsight"
  | "ClusterOperatorProgressInsight"
  | "HealthInsight";

export const PLURALS: Record<InsightKind, string> = {
  NodeProgressInsight: "nodeprogressinsights",
  MachineConfigPoolProgressInsight: "machineconfigpoolprogressinsights",
  ClusterVersionProgressInsight: "clusterversionprogressinsights",
  ClusterOperatorProgressInsight: "clusteroperatorprogressinsights",
  HealthInsight: "healthinsights",
};

export const INSIGHT_KINDS = Object.keys(PLURALS) as InsightKind[];

export type ConditionStatus = "True" | "False" | "Unknown";

/** metav1.Condition without observedGeneration (these objects have no spec to observe). */
export interface ApiCondition {
  type: string;
  status: ConditionStatus;
  reason: string;
  message: string;
  /** RFC 3339, whole seconds. */
  lastTransitionTime: string;
}

export interface ApiResourceRef {
  group?: string;
  resource: string;
  name: string;
  namespace?: string;
}

export type ApiScopeType = "ControlPlane" | "WorkerPool";

export interface NodeProgressStatus {
  name: string;
  poolResource: ApiResourceRef;
  scopeType: ApiScopeType;
  version?: string;
  /** Go duration text (`10m0s`); absent = unknown. */
  estimatedToComplete?: string;
  /** At most 100 characters. */
  message?: string;
  conditions: ApiCondition[];
}

export type NodeSummaryType = "Total" | "Available" | "Progressing" | "Outdated" | "Draining" | "Excluded" | "Degraded";

export interface PoolProgressStatus {
  name: string;
  scopeType: ApiScopeType;
  assessment: string;
  completionPercent: number;
  summaries: Array<{ type: NodeSummaryType; count: number }>;
  conditions: ApiCondition[];
}

export interface ApiVersion {
  version?: string;
  metadata?: Array<{ key: "Installation" | "Partial" | "Architecture"; value?: string }>;
}

export interface ClusterVersionProgressStatus {
  name: string;
  assessment: string;
  versions: { previous?: ApiVersion; target: ApiVersion };
  completionPercent: number;
  startedAt: string;
  completedAt?: string;
  estimatedCompletedAt?: string;
  conditions: ApiCondition[];
}

export interface ClusterOperatorProgressStatus {
  name: string;
  conditions: ApiCondition[];
}

export interface HealthStatus {
  startedAt: string;
  scope: { type: ApiScopeType; resources?: ApiResourceRef[] };
  impact: { level: "Unknown" | "Info" | "Warning" | "Error" | "Critical"; type: string; summary: string; description?: string };
  remediation: { reference: string; estimatedFinish?: string };
}

export type InsightStatus = NodeProgressStatus | PoolProgressStatus | ClusterVersionProgressStatus | ClusterOperatorProgressStatus | HealthStatus;

/** One object as read from the API server (the parts Lockstep looks at). */
export interface InsightObject<S = InsightStatus> {
  apiVersion?: string;
  kind?: string;
  metadata: { name: string; resourceVersion?: string; labels?: Record<string, string>; creationTimestamp?: string };
  status?: S;
}

/** Every insight object of a cluster, by kind (what `lockstep status --from-api` renders). */
export type InsightObjects = { [K in InsightKind]: InsightObject[] };
