// machine-config-daemon, drain controller and the kubelet's reboot, pure core (kube-api.md §17.3):
// which stage a node is in, and the patch each stage writes. Stages chain through the annotations.
import { A, MCD } from "../constants.js";
import type { Stage, Timing } from "../timing.js";
import { annotationsOf, conditionOf, type KubeObject } from "../types.js";

export type DaemonStage = "mcd-start" | "mcd-degrade" | "mcd-request-drain" | "mcd-reboot" | "kubelet-boot" | "mcd-complete" | "mcd-retry";
export type DrainStage = "mcc-drain" | "mcc-uncordon";

export interface NodeFailures {
  /** The daemon fails to apply the config (state=Degraded). */
  degrade?: boolean;
  /** The node never comes back from its reboot. */
  neverReturns?: boolean;
}

export const DRAIN_FAILURE_PREFIX = "failed to drain node: ";

export function drainTimeoutReason(node: string, timeoutSeconds: number): string {
  return `${DRAIN_FAILURE_PREFIX}${node} after ${humanDuration(timeoutSeconds)}. Please see machine-config-controller logs for more information`;
}

export function applyFailureReason(config: string): string {
  return `unexpected on-disk state validating against ${config}: content mismatch for file "/etc/kubernetes/kubelet.conf"`;
}

function humanDuration(s: number): string {
  if (s % 3600 === 0) return s === 3600 ? "1 hour" : `${s / 3600} hours`;
  if (s % 60 === 0) return s === 60 ? "1 minute" : `${s / 60} minutes`;
  return `${s} seconds`;
}

export const isReady = (n: KubeObject) => conditionOf(n, "Ready")?.status === "True";

/** The daemon stage that applies to `node` now, if any. */
export function daemonStage(node: KubeObject, f: NodeFailures = {}): DaemonStage | undefined {
  const a = annotationsOf(node);
  const cur = a[A.currentConfig] ?? "";
  const des = a[A.desiredConfig] ?? "";
  const state = a[A.state] ?? "";
  const dd = a[A.desiredDrain] ?? "";
  const lad = a[A.lastAppliedDrain] ?? "";
  const rebooting = a[A.postConfigAction] === MCD.rebooting;
  if (rebooting) {
    if (!isReady(node)) return f.neverReturns ? undefined : "kubelet-boot";
    return "mcd-complete";
  }
  if (!des || cur === des) return undefined;
  if (state === MCD.done || state === "") return f.degrade ? "mcd-degrade" : "mcd-start";
  if (state === MCD.working) {
    if (dd !== `drain-${des}`) return "mcd-request-drain";
    if (lad === dd) return "mcd-reboot";
    return undefined;
  }
  // A drain that failed and later went through: the daemon retries the update.
  if (state === MCD.degraded && (a[A.reason] ?? "").startsWith(DRAIN_FAILURE_PREFIX) && dd === `drain-${des}` && lad === dd) return "mcd-retry";
  return undefined;
}

/**
 * Where a daemon whose update lease was preempted may stop: anywhere but inside its reboot, which
 * cannot be taken back (the node comes back and completes first). Between two stages nothing of the
 * update is in flight.
 */
export function atSafePoint(node: KubeObject): boolean {
  return annotationsOf(node)[A.postConfigAction] !== MCD.rebooting;
}

/** The daemon stage a node runs now, unless its update lease was preempted and it can stop here. */
export function daemonStageUnlessHalted(node: KubeObject, halted: boolean, f: NodeFailures = {}): DaemonStage | undefined {
  if (halted && atSafePoint(node)) return undefined;
  return daemonStage(node, f);
}

/** How long a daemon stage waits before it runs (the node agent arms it; the rehearsal replays it). */
export function daemonStageTiming(t: Timing, s: DaemonStage): Stage {
  switch (s) {
    case "mcd-start":
    case "mcd-degrade":
    case "mcd-retry":
      return t.mcdStart;
    case "mcd-request-drain":
      return t.mcdRequestDrain;
    case "mcd-reboot":
      return t.mcdReboot;
    case "kubelet-boot":
      return t.boot;
    case "mcd-complete":
      return t.mcdComplete;
  }
}

export function drainStage(node: KubeObject): DrainStage | undefined {
  const a = annotationsOf(node);
  const dd = a[A.desiredDrain] ?? "";
  if (!dd || dd === (a[A.lastAppliedDrain] ?? "")) return undefined;
  if (dd.startsWith("drain-")) return "mcc-drain";
  if (dd.startsWith("uncordon-")) return "mcc-uncordon";
  return undefined;
}

export interface StageWrite {
  /** Merge patch of the node object (annotations, spec). */
  node?: Record<string, unknown>;
  /** Strategic merge patch of the node status (conditions merge by type). */
  status?: Record<string, unknown>;
}

export interface StageContext {
  now: string;
  /** Release version of a rendered config (for nodeInfo after the reboot). */
  versionOf(config: string): string | undefined;
  nodeInfo(name: string, version: string): Record<string, string>;
  /** Write `state=Rebooting` during the reboot (the status rules' Rebooting phase) besides post-config-action. */
  rebootingState: boolean;
}

const ann = (m: Record<string, string | null>) => ({ metadata: { annotations: m } });

export function readyCondition(ready: boolean, now: string, message?: string): Record<string, string> {
  return ready
    ? { type: "Ready", status: "True", reason: "KubeletReady", message: message ?? "kubelet is posting ready status", lastHeartbeatTime: now, lastTransitionTime: now }
    : { type: "Ready", status: "False", reason: "KubeletNotReady", message: message ?? "node is rebooting", lastHeartbeatTime: now, lastTransitionTime: now };
}

/** What a daemon stage writes. */
export function daemonWrite(stage: DaemonStage, node: KubeObject, ctx: StageContext): StageWrite {
  const a = annotationsOf(node);
  const des = a[A.desiredConfig] ?? "";
  switch (stage) {
    case "mcd-start":
    case "mcd-retry":
      return { node: ann({ [A.state]: MCD.working, [A.reason]: "" }) };
    case "mcd-degrade":
      return { node: ann({ [A.state]: MCD.degraded, [A.reason]: applyFailureReason(des) }) };
    case "mcd-request-drain":
      return { node: ann({ [A.desiredDrain]: `drain-${des}` }) };
    case "mcd-reboot":
      return {
        status: { status: { conditions: [readyCondition(false, ctx.now)] } },
        node: ann({ [A.postConfigAction]: MCD.rebooting, ...(ctx.rebootingState ? { [A.state]: MCD.rebooting } : {}) }),
      };
    case "kubelet-boot": {
      const v = ctx.versionOf(des);
      return { status: { status: { conditions: [readyCondition(true, ctx.now)], ...(v ? { nodeInfo: ctx.nodeInfo(node.metadata.name, v) } : {}) } } };
    }
    case "mcd-complete":
      return { node: ann({ [A.currentConfig]: des, [A.state]: MCD.done, [A.reason]: "", [A.postConfigAction]: "", [A.desiredDrain]: `uncordon-${des}` }) };
  }
}

export function uncordonWrite(node: KubeObject): StageWrite {
  return { node: { spec: { unschedulable: null }, metadata: { annotations: { [A.lastAppliedDrain]: annotationsOf(node)[A.desiredDrain] ?? "" } } } };
}
