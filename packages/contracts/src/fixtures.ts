// State objects with every field set, for tests that change fields at random (the property tests
// over packages/testing's cluster steps): a change into a part an object lacks copies that part from
// here. The values are plausible, not meaningful; a test overrides what its rules tell apart.
import { ClusterVersionState } from "./gen/lockstep/state/v1/cluster.js";
import { MachineConfigState } from "./gen/lockstep/state/v1/machine_config.js";
import { NodeState } from "./gen/lockstep/state/v1/node.js";
import { PoolState } from "./gen/lockstep/state/v1/pool.js";

const d = (s: string) => new Date(s);

export const FULL_NODE = NodeState.fromPartial({
  name: "t",
  uid: "uid",
  labels: { "node-role.kubernetes.io/worker": "" },
  roles: ["worker"],
  mco: {
    currentConfig: "rendered-worker-old",
    desiredConfig: "rendered-worker-new",
    desiredConfigPresent: true,
    state: "Working",
    reason: "r",
    desiredDrain: "drain-1",
    lastAppliedDrain: "uncordon-1",
    postConfigAction: "Reboot",
    currentImage: "img-a",
    currentImagePresent: true,
    desiredImage: "img-b",
    desiredImagePresent: true,
    controlPlaneTopology: "HighlyAvailable",
  },
  unschedulable: false,
  conditions: [{ type: "Ready", status: "True", reason: "KubeletReady", message: "ok", lastTransitionTime: d("2024-03-01T10:00:00Z") }],
  creationTime: d("2024-01-01T00:00:00Z"),
  architecture: "amd64",
  kubeletVersion: "v1.29.5",
  deletionTime: d("2024-03-01T11:00:00Z"),
});

export const FULL_POOL = PoolState.fromPartial({
  name: "t",
  uid: "uid",
  generation: "2",
  labels: { "operator.machineconfiguration.openshift.io/required-for-upgrade": "" },
  nodeSelector: { matchLabels: { "node-role.kubernetes.io/worker": "" }, matchExpressions: [{ key: "zone", operator: "Exists", values: [] }] },
  nodeSelectorPresent: true,
  paused: false,
  maxUnavailable: "1",
  targetConfig: "rendered-worker-new",
  currentConfig: "rendered-worker-old",
  counters: { machineCount: 3, updatedMachineCount: 1, readyMachineCount: 3, unavailableMachineCount: 1, degradedMachineCount: 0 },
  conditions: [{ type: "Degraded", status: "False", reason: "r", message: "", lastTransitionTime: d("2024-03-01T10:00:00Z") }],
  observedGeneration: "2",
  newestImageEquivalentConfig: "img-b",
  layered: false,
});

export const FULL_MACHINE_CONFIG = MachineConfigState.fromPartial({ name: "t", uid: "uid", labels: { a: "b" }, releaseImageVersion: "4.16.1", generatedByControllerVersion: "v1", osImageUrl: "img-a", kernelArguments: ["x"], kernelType: "default", fips: false, extensions: ["x"], ignitionVersion: "3.4.0", ownerPool: "worker" });

export const FULL_CLUSTER_VERSION = ClusterVersionState.fromPartial({
  name: "version",
  uid: "uid",
  desired: { version: "4.16.1", image: "img-b" },
  desiredUpdate: { version: "4.16.1", image: "img-b", force: true },
  history: [{ state: "Partial", version: "4.16.1", image: "img-b", startedTime: d("2024-03-01T10:00:00Z"), completionTime: d("2024-03-01T11:00:00Z") }],
  conditions: [{ type: "Progressing", status: "True", reason: "r", message: "", lastTransitionTime: d("2024-03-01T10:00:00Z") }],
  generation: "1",
  observedGeneration: "1",
  channel: "stable-4.16",
  clusterId: "c",
});

/** Each pool's rendered MachineConfigs of a rollout: `rendered-<pool>-old` at `from`, `-new` at `to`. */
export function renderedConfigs(pools: readonly string[], from: string, to: string): Map<string, MachineConfigState> {
  const mcs = new Map<string, MachineConfigState>();
  for (const p of pools) {
    mcs.set(`rendered-${p}-old`, MachineConfigState.fromPartial({ name: `rendered-${p}-old`, releaseImageVersion: from }));
    mcs.set(`rendered-${p}-new`, MachineConfigState.fromPartial({ name: `rendered-${p}-new`, releaseImageVersion: to }));
  }
  return mcs;
}
