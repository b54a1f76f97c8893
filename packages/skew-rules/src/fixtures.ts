// Builders for table tests: small readable snapshots, as the watcher would normalise them.
import {
  BootImagePolicyState,
  BootImagesState,
  ClusterVersionState,
  type Condition,
  InfrastructureState,
  MachineConfigState,
  MachineSetState,
  NodeState,
  PoolState,
} from "@lockstep/contracts";
import type { MachineConfigLookup } from "./pools.js";
import { DEFAULT_SKEW_SETTINGS, type SkewSettings } from "./settings.js";

export function cond(type: string, status: string, message = "", reason = ""): Condition {
  return { type, status, reason, message };
}

export interface PoolSpec {
  current?: string;
  target?: string;
  paused?: boolean;
  degraded?: boolean;
  buildInterrupted?: boolean;
  machines?: number;
  updated?: number;
  degradedMachines?: number;
  role?: string;
  labels?: Record<string, string>;
}

/** A pool selecting `node-role.kubernetes.io/<role>` (its name by default), rendered-<name>-<config>. */
export function pool(name: string, spec: PoolSpec = {}): PoolState {
  const current = spec.current ?? `rendered-${name}-new`;
  return PoolState.fromPartial({
    name,
    labels: spec.labels ?? {},
    nodeSelector: { matchLabels: { [`node-role.kubernetes.io/${spec.role ?? name}`]: "" } },
    nodeSelectorPresent: true,
    paused: spec.paused ?? false,
    currentConfig: current,
    targetConfig: spec.target ?? current,
    counters: {
      machineCount: spec.machines ?? 3,
      updatedMachineCount: spec.updated ?? spec.machines ?? 3,
      readyMachineCount: spec.updated ?? spec.machines ?? 3,
      degradedMachineCount: spec.degradedMachines ?? 0,
    },
    conditions: [
      cond("Degraded", spec.degraded ? "True" : "False"),
      ...(spec.buildInterrupted ? [cond("BuildInterrupted", "True")] : []),
    ],
  });
}

export function configs(entries: Record<string, string>): MachineConfigLookup {
  return new Map(Object.entries(entries).map(([name, release]) => [name, MachineConfigState.fromPartial({ name, releaseImageVersion: release })]));
}

export function node(name: string, role: string, current: string, opts: { desired?: string; state?: string } = {}): NodeState {
  return NodeState.fromPartial({
    name,
    labels: { [`node-role.kubernetes.io/${role}`]: "" },
    roles: [role],
    mco: { currentConfig: current, desiredConfig: opts.desired ?? current, desiredConfigPresent: true, state: opts.state ?? "Done" },
  });
}

/** history newest first; each entry `version:state`. */
export function clusterVersion(desired: string, history: string[] = [`${desired}:Completed`], force = false): ClusterVersionState {
  return ClusterVersionState.fromPartial({
    name: "version",
    desired: { version: desired },
    ...(force ? { desiredUpdate: { version: desired, force: true } } : {}),
    history: history.map((h) => {
      const [version, state] = h.split(":");
      return { version, state };
    }),
  });
}

export function infrastructure(platform: string, extra: Partial<InfrastructureState> = {}): InfrastructureState {
  return InfrastructureState.fromPartial({ name: "cluster", platform, controlPlaneTopology: "HighlyAvailable", ...extra });
}

export function policy(fields: Partial<BootImagePolicyState> = {}): BootImagePolicyState {
  return BootImagePolicyState.fromPartial({ name: "cluster", ...fields });
}

export function settings(overrides: Partial<SkewSettings> = {}): SkewSettings {
  return { ...DEFAULT_SKEW_SETTINGS, ...overrides };
}

export function machineSet(kind: string, providerSpec: unknown, extra: Partial<MachineSetState> = {}): MachineSetState {
  return MachineSetState.fromPartial({
    namespace: "openshift-machine-api",
    name: "ms-a",
    providerSpecKind: kind,
    providerSpecJson: JSON.stringify(providerSpec),
    ...extra,
  });
}

export function bootImages(stream: unknown, releaseVersion = "4.22.1"): BootImagesState {
  return BootImagesState.fromPartial({
    namespace: "openshift-machine-config-operator",
    name: "coreos-bootimages",
    streamJson: JSON.stringify(stream),
    releaseVersion,
  });
}
