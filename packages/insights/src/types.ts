// Inputs of the status rules: the fields of the Kubernetes objects that `oc adm upgrade status`
// reads, in their Kubernetes shape so parsed YAML/JSON can be fed in directly. Timestamps stay
// RFC 3339 text as in the API; list order matters wherever the spec says so.

export interface ObjectMeta {
  name: string;
  namespace?: string;
  labels?: Record<string, string> | null;
  annotations?: Record<string, string> | null;
}

export interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string | null;
}

export interface UpdateHistory {
  state?: string;
  version?: string;
  image?: string;
  startedTime?: string | null;
  completionTime?: string | null;
}

export interface ClusterVersion {
  metadata: ObjectMeta;
  status?: {
    conditions?: Condition[] | null;
    history?: UpdateHistory[] | null;
    desired?: { version?: string; image?: string } | null;
  } | null;
}

export interface OperandVersion {
  name: string;
  version: string;
}

export interface ClusterOperator {
  metadata: ObjectMeta;
  status?: { versions?: OperandVersion[] | null; conditions?: Condition[] | null } | null;
}

export interface LabelSelectorRequirement {
  key: string;
  operator: string;
  values?: string[] | null;
}

export interface LabelSelector {
  matchLabels?: Record<string, string> | null;
  matchExpressions?: LabelSelectorRequirement[] | null;
}

export interface MachineConfigPool {
  metadata: ObjectMeta;
  spec?: {
    /** Absent (or null) matches no node; `{}` matches every node. */
    nodeSelector?: LabelSelector | null;
    paused?: boolean | null;
    configuration?: { name?: string } | null;
  } | null;
}

export interface Node {
  metadata: ObjectMeta;
  spec?: { unschedulable?: boolean | null } | null;
  status?: { conditions?: Condition[] | null } | null;
}

/** Only the name and the release-image-version annotation are read. */
export interface MachineConfig {
  metadata: ObjectMeta;
}

/** GET /api/v1/alerts answer of Thanos querier (11.9). */
export interface AlertsResponse {
  status?: string;
  data?: { alerts?: Alert[] | null } | null;
}

export interface Alert {
  labels?: Record<string, string> | null;
  annotations?: Record<string, string> | null;
  state?: string;
  activeAt?: string | null;
}

export interface StatusInputs {
  /** Undefined when the ClusterVersion `version` does not exist. */
  clusterVersion: ClusterVersion | undefined;
  clusterOperators: ClusterOperator[];
  pools: MachineConfigPool[];
  nodes: Node[];
  machineConfigs: MachineConfig[];
  /** Image of the machine-config-operator container of the MCO deployment; "" when unknown. */
  mcoImage: string;
  /** Undefined means "alerts unavailable": no alert insights. */
  alerts?: AlertsResponse | undefined;
}

export interface EvaluateOptions {
  /** The evaluation instant (Unix ns): the wall clock live, the fixture rule offline. */
  now: bigint;
  /** The clock of the "seriously unavailable" check (11.3); upstream always uses the wall clock. */
  wallClock: bigint;
}
