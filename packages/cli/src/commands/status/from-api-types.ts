// The OpenShift Update Status API as `lockstep status --from-api` reads it: the five kinds of
// update.openshift.io/v1alpha1 (openshift/api PR 2233, commit bb998d952ce9b1b6bf0379c27a9e90f867f1f6d4)
// and the status fields the `oc` view needs. A reader of the upstream API like any other: it shares
// no code with the status-aggregator's writer (a package never imports a service).

export const UPDATE_GROUP = "update.openshift.io";
export const UPDATE_VERSION = "v1alpha1";

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

export interface ApiCondition {
  type: string;
  status: "True" | "False" | "Unknown";
  reason: string;
  message: string;
  lastTransitionTime: string;
}

export interface ApiResourceRef {
  group?: string;
  resource: string;
  name: string;
  namespace?: string;
}

export interface NodeProgressStatus {
  name: string;
  poolResource: ApiResourceRef;
  scopeType: "ControlPlane" | "WorkerPool";
  version?: string;
  estimatedToComplete?: string;
  message?: string;
  conditions: ApiCondition[];
}

export interface PoolProgressStatus {
  name: string;
  scopeType: "ControlPlane" | "WorkerPool";
  assessment: string;
  completionPercent: number;
  conditions: ApiCondition[];
}

export interface ApiVersion {
  version?: string;
  metadata?: Array<{ key: string; value?: string }>;
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
  scope: { type: "ControlPlane" | "WorkerPool"; resources?: ApiResourceRef[] };
  impact: { level: string; type: string; summary: string; description?: string };
  remediation: { reference: string };
}

export interface InsightObject {
  metadata: { name: string };
  status?: unknown;
}

/** Every insight object of a cluster, by kind. */
export type InsightObjects = { [K in InsightKind]: InsightObject[] };
