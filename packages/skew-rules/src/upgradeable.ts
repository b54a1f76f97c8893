import { tryParseOcpVersion } from "@lockstep/versions";
import type { BootImageVerdict } from "./boot-image-skew.js";
import {
  MSG_DEGRADED_POOL,
  MSG_INTERRUPTED_BUILD,
  MSG_POOL_UPDATING,
  REASON_AS_EXPECTED,
  REASON_BOOT_IMAGE_SKEW,
  REASON_BOOT_IMAGE_SKEW_UNCHECKED,
  REASON_DEGRADED_POOL,
  REASON_INTERRUPTED_BUILD,
  REASON_PAUSED_POOL_LAGGING,
  REASON_POOL_UPDATING,
} from "./messages.js";
import type { PoolAssessment, PoolLagAssessment } from "./pool-lag.js";
import { kubeletSkewFor, type SkewSettings } from "./settings.js";

/** The `Upgradeable` condition Lockstep writes on ClusterOperator `lockstep`. */
export interface UpgradeableVerdict {
  readonly status: "True" | "False";
  readonly reason: string;
  readonly message: string;
  /** Every blocking reason, in precedence order; the first is `reason`. */
  readonly blockingReasons: readonly string[];
  /** Lagging pools that block, with the reason each one contributes. */
  readonly blockingPools: readonly { readonly pool: string; readonly reason: string }[];
  /** Paused lagging pools let through by `pausedPools: AllowWithinKubeletSkew`. */
  readonly allowedPausedPools: readonly string[];
  /** The target the paused-pool allowance was judged against. */
  readonly judgedTarget: string;
}

export interface UpgradeableInputs {
  readonly lag: PoolLagAssessment;
  readonly bootImage: BootImageVerdict | undefined;
  readonly settings: SkewSettings;
  /** ClusterVersion status.desired.version. */
  readonly currentVersion: string;
  /**
   * The proposed target. Without one (the standing condition) the next minor of the current
   * version is assumed, since only minor updates are blocked.
   */
  readonly targetVersion?: string | undefined;
}

/** The next minor (`4.16.3` → `4.17.0`), or "" when the current version is unparsable. */
export function nextMinor(version: string): string {
  const parsed = tryParseOcpVersion(version);
  return parsed.ok ? `${parsed.value.major}.${parsed.value.minor + 1}.0` : "";
}

function minorParts(version: string): { major: number; minor: number } | undefined {
  const parsed = tryParseOcpVersion(version);
  return parsed.ok ? { major: parsed.value.major, minor: parsed.value.minor } : undefined;
}

type Allowance = { allowed: true; note: string } | { allowed: false; note: string };

/** §5.6 rule 3: a paused pool passes when targetMinor − poolMinor ≤ the target's kubelet skew. */
function eusAllowance(pool: PoolAssessment, target: string, settings: SkewSettings): Allowance {
  const skew = kubeletSkewFor(settings, target);
  const t = minorParts(target);
  const p = minorParts(pool.version);
  if (!t) return { allowed: false, note: `${pool.name}: the target version ${JSON.stringify(target)} is unknown` };
  if (!p) return { allowed: false, note: `${pool.name}: its release is unknown, so its kubelet skew cannot be judged` };
  const gap = t.major === p.major ? t.minor - p.minor : Number.POSITIVE_INFINITY;
  const distance = Number.isFinite(gap) ? `${gap} minor(s)` : "a different major version";
  const where = `${pool.name} at ${p.major}.${p.minor} is ${distance} behind ${t.major}.${t.minor}`;
  return gap <= skew
    ? { allowed: true, note: `${where}, within the supported kubelet skew of ${skew}` }
    : { allowed: false, note: `${where}, beyond the supported kubelet skew of ${skew}` };
}

function nodes(n: number): string {
  return n === 1 ? "1 node" : `${n} nodes`;
}

function release(v: string): string {
  return v === "" ? "release unknown" : `release ${v}`;
}

/** One pool, named with its node counts, configs and releases. */
export function describePool(pool: PoolAssessment, controlPlaneRelease: string): string {
  const counts = `${pool.updatedMachineCount} of ${nodes(pool.machineCount)} updated` +
    (pool.degradedMachineCount > 0 ? `, ${pool.degradedMachineCount} degraded` : "");
  const configs = pool.rolloutUnfinished
    ? `on ${pool.currentConfig || "no completed config"} (${release(pool.version)}), target ${pool.targetConfig} (${release(pool.targetVersion)})`
    : `on ${pool.currentConfig || "no completed config"} (${release(pool.version)})`;
  // A finished pool on another release: say what it differs from.
  const behind = pool.releaseDiffers && !pool.rolloutUnfinished && controlPlaneRelease ? `, control plane at ${controlPlaneRelease}` : "";
  return `${pool.paused ? "paused pool" : "pool"} ${pool.name}: ${counts}, ${configs}${behind}`;
}

function unpauseCommand(names: readonly string[]): string {
  return names.map((n) => `oc patch mcp ${n} --type merge -p '{"spec":{"paused":false}}'`).join("; ");
}

/**
 * §5.6 rule 2, ordered by reason (not pool list position) so the result is deterministic:
 * DegradedPool, InterruptedBuild, PoolUpdating, PausedPoolLagging, ClusterBootImageSkewError.
 */
export function evaluateUpgradeable(inputs: UpgradeableInputs): UpgradeableVerdict {
  const { lag, settings } = inputs;
  const cp = lag.controlPlaneRelease;
  const judgedTarget = inputs.targetVersion || nextMinor(inputs.currentVersion);
  const degraded = lag.pools.filter((p) => p.degraded);
  const interrupted = lag.pools.filter((p) => p.buildInterrupted && !p.degraded);
  const updating = lag.pools.filter((p) => p.lagging && !p.paused);
  const pausedLagging = lag.pools.filter((p) => p.lagging && p.paused);

  const notes: string[] = [];
  const allowedPaused: string[] = [];
  let pausedBlocking = pausedLagging;
  if (settings.pausedPools === "AllowWithinKubeletSkew" && pausedLagging.length > 0) {
    pausedBlocking = [];
    for (const pool of pausedLagging) {
      const a = eusAllowance(pool, judgedTarget, settings);
      notes.push(a.note);
      if (a.allowed) allowedPaused.push(pool.name);
      else pausedBlocking.push(pool);
    }
  }
  const allowanceText =
    notes.length > 0 ? `pausedPools=AllowWithinKubeletSkew, judged against ${judgedTarget || "an unknown target"}: ${notes.join("; ")}.` : "";

  const sections: { reason: string; pools: PoolAssessment[]; message: string }[] = [];
  if (degraded.length > 0) {
    sections.push({
      reason: REASON_DEGRADED_POOL,
      pools: degraded,
      message: `${MSG_DEGRADED_POOL}. Degraded: ${degraded.map((p) => describePool(p, cp)).join("; ")}.`,
    });
  }
  if (interrupted.length > 0) {
    sections.push({
      reason: REASON_INTERRUPTED_BUILD,
      pools: interrupted,
      message: `${MSG_INTERRUPTED_BUILD}. Interrupted: ${interrupted.map((p) => describePool(p, cp)).join("; ")}.`,
    });
  }
  if (updating.length > 0) {
    sections.push({
      reason: REASON_POOL_UPDATING,
      pools: updating,
      message:
        `${MSG_POOL_UPDATING}. Not yet at the control plane release ${cp || "(unknown)"}: ` +
        `${updating.map((p) => describePool(p, cp)).join("; ")}. Let the rollout finish before a minor upgrade; z-stream updates are not blocked.`,
    });
  }
  if (pausedBlocking.length > 0) {
    const names = pausedBlocking.map((p) => p.name);
    sections.push({
      reason: REASON_PAUSED_POOL_LAGGING,
      pools: pausedBlocking,
      message:
        `One or more paused machine config pools lag behind the control plane release ${cp || "(unknown)"}: ` +
        `${pausedBlocking.map((p) => describePool(p, cp)).join("; ")}. ` +
        `Unpause them (${unpauseCommand(names)}) and let them finish before a minor upgrade; z-stream updates are not blocked.`,
    });
  }
  if (inputs.bootImage?.outcome === "Violation") {
    // Upstream's message A or B, verbatim (§4.7): nothing is appended to it.
    sections.push({ reason: REASON_BOOT_IMAGE_SKEW, pools: [], message: inputs.bootImage.message });
  }

  const blockingPools = sections.flatMap((s) => s.pools.map((p) => ({ pool: p.name, reason: s.reason })));
  const [first, ...rest] = sections;
  if (first) {
    const tail = [
      ...rest.map((s) => `Also ${s.reason}${s.pools.length > 0 ? `: ${s.pools.map((p) => p.name).join(", ")}` : ""}.`),
      first.reason === REASON_BOOT_IMAGE_SKEW ? "" : allowanceText,
    ].filter(Boolean);
    return {
      status: "False",
      reason: first.reason,
      message: first.reason === REASON_BOOT_IMAGE_SKEW ? first.message : [first.message, ...tail].join(" "),
      blockingReasons: sections.map((s) => s.reason),
      blockingPools,
      allowedPausedPools: allowedPaused,
      judgedTarget,
    };
  }
  const warning = inputs.bootImage?.warning ?? "";
  return {
    status: "True",
    reason: warning ? REASON_BOOT_IMAGE_SKEW_UNCHECKED : REASON_AS_EXPECTED,
    message: [warning ? `${warning}.` : "", allowanceText].filter(Boolean).join(" "),
    blockingReasons: [],
    blockingPools: [],
    allowedPausedPools: allowedPaused,
    judgedTarget,
  };
}
