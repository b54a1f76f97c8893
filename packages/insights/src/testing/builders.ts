// Small builders for unit tests: Kubernetes-shaped inputs with only the fields a test cares about.
import type { ClusterOperator, ClusterVersion, Condition, MachineConfig, MachineConfigPool, Node, UpdateHistory } from "../types.js";

const MCO = "machineconfiguration.openshift.io/";

export interface NodeOpts {
  current?: string;
  desired?: string | null;
  state?: string;
  reason?: string;
  desiredDrain?: string;
  lastAppliedDrain?: string;
  desiredImage?: string;
  currentImage?: string;
  unschedulable?: boolean;
  conditions?: Condition[];
  labels?: Record<string, string>;
}

export function node(name: string, o: NodeOpts = {}): Node {
  const annotations: Record<string, string> = {};
  if (o.current !== undefined) annotations[`${MCO}currentConfig`] = o.current;
  if (o.desired !== undefined && o.desired !== null) annotations[`${MCO}desiredConfig`] = o.desired;
  if (o.state !== undefined) annotations[`${MCO}state`] = o.state;
  if (o.reason !== undefined) annotations[`${MCO}reason`] = o.reason;
  if (o.desiredDrain !== undefined) annotations[`${MCO}desiredDrain`] = o.desiredDrain;
  if (o.lastAppliedDrain !== undefined) annotations[`${MCO}lastAppliedDrain`] = o.lastAppliedDrain;
  if (o.desiredImage !== undefined) annotations[`${MCO}desiredImage`] = o.desiredImage;
  if (o.currentImage !== undefined) annotations[`${MCO}currentImage`] = o.currentImage;
  return {
    metadata: { name, labels: o.labels ?? { "node-role.kubernetes.io/worker": "" }, annotations },
    spec: { unschedulable: o.unschedulable ?? false },
    status: { conditions: o.conditions ?? [{ type: "Ready", status: "True", lastTransitionTime: "2024-01-01T00:00:00Z" }] },
  };
}

export function pool(name: string, o: { config?: string; paused?: boolean; selectorRole?: string; labels?: Record<string, string>; annotations?: Record<string, string> } = {}): MachineConfigPool {
  return {
    metadata: { name, labels: o.labels ?? {}, annotations: o.annotations ?? {} },
    spec: {
      nodeSelector: { matchLabels: { [`node-role.kubernetes.io/${o.selectorRole ?? name}`]: "" } },
      paused: o.paused ?? false,
      configuration: { name: o.config ?? `rendered-${name}-new` },
    },
  };
}

export const mc = (name: string, version: string): MachineConfig => ({
  metadata: { name, annotations: { [`${MCO}release-image-version`]: version } },
});

export const cond = (type: string, status: string, lastTransitionTime = "2024-01-01T00:00:00Z", extra: Partial<Condition> = {}): Condition => ({
  type,
  status,
  lastTransitionTime,
  ...extra,
});

export function operator(name: string, o: { version?: string; progressing?: Condition; available?: Condition; degraded?: Condition; platform?: boolean } = {}): ClusterOperator {
  return {
    metadata: { name, annotations: o.platform === false ? {} : { "include.release.openshift.io/self-managed-high-availability": "true" } },
    status: {
      versions: [{ name: "operator", version: o.version ?? "4.2.0" }],
      conditions: [
        o.available ?? cond("Available", "True"),
        o.degraded ?? cond("Degraded", "False"),
        o.progressing ?? cond("Progressing", "False"),
      ],
    },
  };
}

export function clusterVersion(history: UpdateHistory[], o: { desired?: string; progressing?: string; conditions?: Condition[] } = {}): ClusterVersion {
  return {
    metadata: { name: "version" },
    status: {
      desired: { version: o.desired ?? history[0]?.version ?? "" },
      history,
      conditions: o.conditions ?? [cond("Failing", "False"), cond("Progressing", o.progressing ?? "True")],
    },
  };
}
