// The state plane's snapshots (what the watcher publishes, @lockstep/contracts) back into the API
// objects the simulator's cores read: the fields the watcher keeps, in their API places. Pure. Pods
// are not in the state plane, so a rehearsal from it replays no PodDisruptionBudget.
import { MCO_ANNOTATIONS as A, type KubeObject } from "@lockstep/cluster-sim";
import type {
  ClusterOperatorState,
  ClusterVersionState,
  Condition,
  DisruptionBudgetState,
  InfrastructureState,
  LabelSelector,
  LeaseState,
  MachineConfigState,
  NodeDisruptionPolicyState,
  NodeState,
  PolicyAction,
  PoolState,
} from "@lockstep/contracts";

export interface StatePlaneSnapshot {
  clusterVersion: ClusterVersionState | undefined;
  clusterOperators: readonly ClusterOperatorState[];
  machineConfigs: readonly MachineConfigState[];
  pools: readonly PoolState[];
  nodes: readonly NodeState[];
  leases: readonly LeaseState[];
  disruptionBudgets: readonly DisruptionBudgetState[];
  nodeDisruptionPolicies: readonly NodeDisruptionPolicyState[];
  infrastructure: InfrastructureState | undefined;
}

const time = (d: Date | undefined): string | undefined => (d ? d.toISOString().replace(/\.\d{3}Z$/, "Z") : undefined);
const nonEmpty = (m: Record<string, string | undefined>): Record<string, string> => Object.fromEntries(Object.entries(m).filter((e): e is [string, string] => typeof e[1] === "string" && e[1] !== ""));

function conditions(list: readonly Condition[]): Array<Record<string, string>> {
  return list.map((c) => ({ type: c.type, status: c.status, reason: c.reason, message: c.message, ...(c.lastTransitionTime ? { lastTransitionTime: time(c.lastTransitionTime)! } : {}) }));
}

function selector(s: LabelSelector | undefined): Record<string, unknown> | undefined {
  return s ? { matchLabels: { ...s.matchLabels }, ...(s.matchExpressions.length ? { matchExpressions: s.matchExpressions.map((e) => ({ ...e, values: [...e.values] })) } : {}) } : undefined;
}

/** "2" as the number the API would hold, "10%" as it is, "" as unset. */
function intOrString(v: string): number | string | undefined {
  if (v === "") return undefined;
  return /^\d+$/.test(v) ? Number(v) : v;
}

export function nodeObject(n: NodeState): KubeObject {
  const m = n.mco;
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: {
      name: n.name,
      uid: n.uid,
      labels: { ...n.labels },
      ...(n.creationTime ? { creationTimestamp: time(n.creationTime) } : {}),
      annotations: m
        ? nonEmpty({
            [A.currentConfig]: m.currentConfig,
            [A.desiredConfig]: m.desiredConfig,
            [A.state]: m.state,
            [A.reason]: m.reason,
            [A.desiredDrain]: m.desiredDrain,
            [A.lastAppliedDrain]: m.lastAppliedDrain,
            [A.postConfigAction]: m.postConfigAction,
            [A.controlPlaneTopology]: m.controlPlaneTopology,
          })
        : {},
    },
    spec: n.unschedulable ? { unschedulable: true } : {},
    status: { conditions: conditions(n.conditions), nodeInfo: { kubeletVersion: n.kubeletVersion, architecture: n.architecture } },
  };
}

export function poolObject(p: PoolState): KubeObject {
  const maxUnavailable = intOrString(p.maxUnavailable);
  return {
    apiVersion: "machineconfiguration.openshift.io/v1",
    kind: "MachineConfigPool",
    metadata: { name: p.name, uid: p.uid, labels: { ...p.labels }, generation: Number(p.generation) || 1 },
    spec: {
      ...(p.nodeSelectorPresent ? { nodeSelector: selector(p.nodeSelector) } : {}),
      paused: p.paused,
      ...(maxUnavailable !== undefined ? { maxUnavailable } : {}),
      configuration: { name: p.targetConfig },
    },
    status: { configuration: { name: p.currentConfig }, ...(p.counters ?? {}), conditions: conditions(p.conditions), observedGeneration: Number(p.observedGeneration) || 0 },
  };
}

/**
 * The state keeps a file's contents (small ones) or its digest, a unit's digest: placeholders stand
 * for what only a digest says, so two configs still differ exactly where their digests do.
 */
export function machineConfigObject(mc: MachineConfigState): KubeObject {
  const data = (text: string) => `data:,${encodeURIComponent(text)}`;
  return {
    apiVersion: "machineconfiguration.openshift.io/v1",
    kind: "MachineConfig",
    metadata: { name: mc.name, uid: mc.uid, labels: { ...mc.labels }, annotations: nonEmpty({ [A.releaseImageVersion]: mc.releaseImageVersion, [A.generatedByControllerVersion]: mc.generatedByControllerVersion }) },
    spec: {
      osImageURL: mc.osImageUrl,
      kernelArguments: [...mc.kernelArguments],
      kernelType: mc.kernelType,
      fips: mc.fips,
      extensions: [...mc.extensions],
      config: {
        ignition: { version: mc.ignitionVersion || "3.2.0" },
        storage: { files: mc.files.map((f) => ({ path: f.path, overwrite: f.overwrite, ...(f.modePresent ? { mode: f.mode } : {}), contents: { source: data(f.contents || `digest:${f.contentsDigest}`) } })) },
        systemd: { units: mc.units.map((u) => ({ name: u.name, ...(u.enabledPresent ? { enabled: u.enabled } : {}), ...(u.mask ? { mask: true } : {}), contents: `digest:${u.contentsDigest}`, ...(u.dropins.length ? { dropins: u.dropins.map((d) => ({ name: d.name, contents: `digest:${d.contentsDigest}` })) } : {}) })) },
        passwd: { users: mc.sshUsers.map((s) => ({ name: s.name, sshAuthorizedKeys: [...s.sshAuthorizedKeys] })) },
      },
    },
  };
}

export function clusterVersionObject(cv: ClusterVersionState): KubeObject {
  return {
    apiVersion: "config.openshift.io/v1",
    kind: "ClusterVersion",
    metadata: { name: cv.name, uid: cv.uid, generation: Number(cv.generation) || 1 },
    spec: { channel: cv.channel, clusterID: cv.clusterId, ...(cv.desiredUpdate ? { desiredUpdate: { ...cv.desiredUpdate } } : {}) },
    status: {
      ...(cv.desired ? { desired: { version: cv.desired.version, image: cv.desired.image } } : {}),
      history: cv.history.map((h) => ({ state: h.state, version: h.version, image: h.image, startedTime: time(h.startedTime), completionTime: time(h.completionTime) ?? null, verified: h.verified, ...(h.acceptedRisks ? { acceptedRisks: h.acceptedRisks } : {}) })),
      conditions: conditions(cv.conditions),
      observedGeneration: Number(cv.observedGeneration) || 0,
    },
  };
}

export function clusterOperatorObject(co: ClusterOperatorState): KubeObject {
  return {
    apiVersion: "config.openshift.io/v1",
    kind: "ClusterOperator",
    metadata: { name: co.name, uid: co.uid, annotations: Object.fromEntries(co.annotationKeys.map((k) => [k, "true"])) },
    status: { conditions: conditions(co.conditions), versions: co.versions.map((v) => ({ ...v })) },
  };
}

export function leaseObject(l: LeaseState): KubeObject {
  return {
    apiVersion: "coordination.k8s.io/v1",
    kind: "Lease",
    metadata: { namespace: l.namespace, name: l.name, uid: l.uid, resourceVersion: l.resourceVersion, labels: { ...l.labels }, annotations: { ...l.annotations }, ownerReferences: l.ownerReferences.map((r) => ({ apiVersion: r.version, kind: r.kind, name: r.name, uid: r.uid })) },
    spec: {
      holderIdentity: l.holderIdentity,
      leaseDurationSeconds: l.leaseDurationSeconds,
      ...(l.acquireTime ? { acquireTime: l.acquireTime.toISOString().replace("Z", "000Z") } : {}),
      // The raw text keeps the holder's own precision and form (the policy reads it as written).
      ...(l.rawRenewTime || l.renewTime ? { renewTime: l.rawRenewTime || l.renewTime!.toISOString().replace("Z", "000Z") } : {}),
      leaseTransitions: l.leaseTransitions,
    },
  };
}

export function disruptionBudgetObject(b: DisruptionBudgetState): KubeObject {
  return {
    apiVersion: "lockstep.io/v1alpha1",
    kind: "DisruptionBudget",
    metadata: { name: b.name, uid: b.uid, generation: Number(b.generation) || 1 },
    spec: {
      ...(b.pool ? { pool: b.pool } : {}),
      ...(b.nodeSelector ? { nodeSelector: selector(b.nodeSelector) } : {}),
      maxDisrupted: b.maxDisrupted,
      ...(b.schedules.length ? { schedules: b.schedules.map((s) => nonEmpty({ cron: s.cron, duration: s.duration, timeZone: s.timeZone, maxDisrupted: s.maxDisrupted })) } : {}),
      ...(b.operations.length ? { operations: [...b.operations] } : {}),
    },
  };
}

function action(a: PolicyAction): Record<string, unknown> {
  if (a.type === "Reload") return { type: a.type, reload: { serviceName: a.serviceName } };
  if (a.type === "Restart") return { type: a.type, restart: { serviceName: a.serviceName } };
  return { type: a.type };
}

export function nodeDisruptionPolicyObject(p: NodeDisruptionPolicyState): KubeObject {
  return {
    apiVersion: "lockstep.io/v1alpha1",
    kind: "NodeDisruptionPolicy",
    metadata: { name: p.name, uid: p.uid, generation: Number(p.generation) || 1, labels: p.default ? { "lockstep.io/default": "true" } : {} },
    spec: {
      files: p.files.map((f) => ({ path: f.path, actions: f.actions.map(action) })),
      units: p.units.map((u) => ({ name: u.name, actions: u.actions.map(action) })),
      ...(p.sshkeyPresent && p.sshkey ? { sshkey: { actions: p.sshkey.actions.map(action) } } : {}),
    },
  };
}

export function infrastructureObject(i: InfrastructureState): KubeObject {
  return {
    apiVersion: "config.openshift.io/v1",
    kind: "Infrastructure",
    metadata: { name: i.name },
    status: { platform: i.platform, infrastructureName: i.infrastructureName, controlPlaneTopology: i.controlPlaneTopology, infrastructureTopology: i.infrastructureTopology, platformStatus: { type: i.platform } },
  };
}

/** Every object of the state plane's snapshot, as API objects (the default policy objects are left to the shipped defaults). */
export function objectsFromState(s: StatePlaneSnapshot): KubeObject[] {
  return [
    ...(s.clusterVersion ? [clusterVersionObject(s.clusterVersion)] : []),
    ...s.clusterOperators.map(clusterOperatorObject),
    ...s.machineConfigs.map(machineConfigObject),
    ...s.pools.map(poolObject),
    ...s.nodes.map(nodeObject),
    ...s.leases.map(leaseObject),
    ...s.disruptionBudgets.map(disruptionBudgetObject),
    ...s.nodeDisruptionPolicies.filter((p) => !p.default).map(nodeDisruptionPolicyObject),
    ...(s.infrastructure ? [infrastructureObject(s.infrastructure)] : []),
  ];
}
