import type { MachineConfigDaemonState, NodeState } from "@lockstep/contracts";
import { meta, MCO, requireName, str, strMap, time, type Obj } from "./common.js";

// Conditions other services read; heartbeat times are left out so kubelet heartbeats change nothing.
const KEPT_CONDITIONS = new Set(["Ready", "DiskPressure", "NetworkUnavailable", "MemoryPressure", "PIDPressure"]);
const ROLE_PREFIX = "node-role.kubernetes.io/";

function annotation(a: Record<string, unknown>, key: string): { value: string; present: boolean } {
  const v = a[MCO + key];
  return { value: str(v), present: v !== undefined };
}

export function mcoState(annotations: Record<string, unknown>): MachineConfigDaemonState {
  const get = (k: string) => annotation(annotations, k);
  return {
    currentConfig: get("currentConfig").value,
    desiredConfig: get("desiredConfig").value,
    desiredConfigPresent: get("desiredConfig").present,
    state: get("state").value,
    reason: get("reason").value,
    desiredDrain: get("desiredDrain").value,
    lastAppliedDrain: get("lastAppliedDrain").value,
    postConfigAction: get("post-config-action").value,
    currentImage: get("currentImage").value,
    currentImagePresent: get("currentImage").present,
    desiredImage: get("desiredImage").value,
    desiredImagePresent: get("desiredImage").present,
    controlPlaneTopology: get("controlPlaneTopology").value,
  };
}

export function normalizeNode(o: Obj): NodeState {
  const name = requireName("Node", o);
  const m = meta(o);
  const labels = strMap(m.labels);
  const roles = Object.keys(labels)
    .filter((k) => k.startsWith(ROLE_PREFIX))
    .map((k) => k.slice(ROLE_PREFIX.length))
    .filter((r) => r !== "")
    .sort();
  const conds = Array.isArray(o.status?.conditions) ? (o.status.conditions as Obj[]) : [];
  return {
    name,
    uid: str(m.uid),
    labels,
    roles,
    mco: mcoState((m.annotations ?? {}) as Record<string, unknown>),
    unschedulable: o.spec?.unschedulable === true,
    conditions: conds
      .filter((c) => KEPT_CONDITIONS.has(c?.type))
      .map((c) => ({ type: c.type, status: str(c.status), reason: str(c.reason), message: str(c.message), lastTransitionTime: time(c.lastTransitionTime) }))
      .sort((a, b) => a.type.localeCompare(b.type)),
    creationTime: time(m.creationTimestamp),
    architecture: str(o.status?.nodeInfo?.architecture),
    kubeletVersion: str(o.status?.nodeInfo?.kubeletVersion),
    deletionTime: time(m.deletionTimestamp),
  };
}
