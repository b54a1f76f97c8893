// Spec §5.3: a port of the MCO node-state logic deciding whether a node is unavailable, and why.
import {
  CURRENT_CONFIG,
  CURRENT_IMAGE,
  DESIRED_CONFIG,
  DESIRED_IMAGE,
  LAYERING_ENABLED_LABEL,
  MCD_DEGRADED,
  MCD_DONE,
  MCD_STATE,
  MCD_UNRECONCILABLE,
  POOL_OS_IMAGE,
} from "./annotations.js";
import { goQuote } from "./go-quote.js";
import { MINUTE, ZERO_TIME, isZeroTime, parseTime } from "./time.js";
import { hasKey, type KeysRead, type NodeOf, type PoolOf, type RuleInputs } from "./reads.js";

const READY = "Ready";
const DISK_PRESSURE = "DiskPressure";
const NETWORK_UNAVAILABLE = "NetworkUnavailable";

/** What assessAvailability (and poolOsImage) read; the types below are picked from it (reads.ts). */
export const NODE_AVAILABILITY_INPUTS = {
  node: {
    annotations: [CURRENT_CONFIG, DESIRED_CONFIG, CURRENT_IMAGE, DESIRED_IMAGE, MCD_STATE],
    conditions: [READY, DISK_PRESSURE, NETWORK_UNAVAILABLE],
    unschedulable: true,
  },
  pool: { labels: [LAYERING_ENABLED_LABEL], annotations: [POOL_OS_IMAGE] },
} as const satisfies RuleInputs;
export type AvailabilityNode = NodeOf<typeof NODE_AVAILABILITY_INPUTS>;
export type AvailabilityPool = PoolOf<typeof NODE_AVAILABILITY_INPUTS>;
type Annotations = KeysRead<(typeof NODE_AVAILABILITY_INPUTS)["node"]["annotations"][number]>;

export const REASON_NOT_READY = "Not ready";
export const REASON_DISK_PRESSURE = "Disk pressure";
export const REASON_NETWORK_UNAVAILABLE = "Network unavailable";
export const REASON_UNSCHEDULABLE = "Node is marked unschedulable";
export const REASON_MCD_PROCESSING = "Machine Config Daemon is processing the node";

export interface UnavailableReason {
  reason: string;
  /** Message of the node condition behind the reason, "" for the others. */
  message: string;
  /** Transition time of that condition (Unix ns), ZERO_TIME for the others. */
  since: bigint;
}

export interface NodeAvailability {
  /** The flag of §5.3 step 4: flagged and the desired image equals the pool. */
  isUnavailable: boolean;
  reasons: UnavailableReason[];
}

function isNodeDone(ann: Annotations): boolean {
  const current = ann[CURRENT_CONFIG] ?? "";
  const desired = ann[DESIRED_CONFIG] ?? "";
  if (current === "" || desired === "" || current !== desired) return false;
  const hasDesiredImage = hasKey(ann, DESIRED_IMAGE);
  const hasCurrentImage = hasKey(ann, CURRENT_IMAGE);
  if (hasDesiredImage || hasCurrentImage) {
    const di = ann[DESIRED_IMAGE] ?? "";
    const ci = ann[CURRENT_IMAGE] ?? "";
    if (di === "" || ci === "" || di !== ci) return false;
  }
  return ann[MCD_STATE] === MCD_DONE;
}

/** The pool's OS image when it is layered and has one, else undefined. */
export function poolOsImage(pool: AvailabilityPool): string | undefined {
  if (!hasKey(pool.metadata.labels, LAYERING_ENABLED_LABEL)) return undefined;
  const image = pool.metadata.annotations?.[POOL_OS_IMAGE] ?? "";
  return image === "" ? undefined : image;
}

export function assessAvailability(node: AvailabilityNode, pool: AvailabilityPool): NodeAvailability {
  const ann: Annotations = node.metadata.annotations ?? {};
  const reasons: UnavailableReason[] = [];
  for (const c of node.status?.conditions ?? []) {
    const base = { message: c.message ?? "", since: parseTime(c.lastTransitionTime) };
    if (c.type === READY && c.status !== "True") reasons.push({ reason: REASON_NOT_READY, ...base });
    if (c.type === DISK_PRESSURE && c.status !== "False") reasons.push({ reason: REASON_DISK_PRESSURE, ...base });
    if (c.type === NETWORK_UNAVAILABLE && c.status !== "False")
      reasons.push({ reason: REASON_NETWORK_UNAVAILABLE, ...base });
  }
  if (node.spec?.unschedulable === true) reasons.push({ reason: REASON_UNSCHEDULABLE, message: "", since: ZERO_TIME });

  if (reasons.length === 0) {
    const state = ann[MCD_STATE] ?? "";
    if (isNodeDone(ann) || state === MCD_DEGRADED || state === MCD_UNRECONCILABLE) {
      return { isUnavailable: false, reasons };
    }
    reasons.push({ reason: REASON_MCD_PROCESSING, message: "", since: ZERO_TIME });
  }

  // Flagged: unavailable only while the desired image "equals the pool".
  const osImage = poolOsImage(pool);
  const desiredImage = ann[DESIRED_IMAGE] ?? "";
  if (osImage === undefined) return { isUnavailable: desiredImage === "", reasons };
  if (desiredImage === osImage) return { isUnavailable: true, reasons };
  reasons.push({
    reason: `Node has an unexpected annotation ${POOL_OS_IMAGE}=${osImage}`,
    message: "",
    since: ZERO_TIME,
  });
  return { isUnavailable: false, reasons };
}

/** Table MESSAGE text: the reasons joined with " | ". */
export const reasonString = (reasons: readonly UnavailableReason[]): string => reasons.map((r) => r.reason).join(" | ");

/** Insight summary text. */
export function messageString(nodeName: string, reasons: readonly UnavailableReason[]): string {
  return reasons
    .map((r) => {
      switch (r.reason) {
        case REASON_NOT_READY:
          return `Node ${nodeName} is not ready`;
        case REASON_DISK_PRESSURE:
          return `Node ${nodeName} has disk pressure`;
        case REASON_NETWORK_UNAVAILABLE:
          return `Node ${nodeName} has unavailable network`;
        default:
          return r.reason;
      }
    })
    .join(" | ");
}

/** Insight description text. */
export function descriptionString(reasons: readonly UnavailableReason[]): string {
  const cond = (type: string, bad: string, r: UnavailableReason): string =>
    `Node has a ${type}!=${bad} condition with Reason ${goQuote(r.reason)} and message ${goQuote(r.message)}`;
  return reasons
    .map((r) => {
      switch (r.reason) {
        case REASON_NOT_READY:
          return cond("Ready", "True", r);
        case REASON_DISK_PRESSURE:
          return cond("DiskPressure", "False", r);
        case REASON_NETWORK_UNAVAILABLE:
          return cond("NetworkUnavailable", "False", r);
        default:
          return r.reason;
      }
    })
    .join(" | ");
}

/** Earliest non-zero transition time among the reasons, ZERO_TIME if none. */
export function unavailableSince(reasons: readonly UnavailableReason[]): bigint {
  let ret = ZERO_TIME;
  for (const r of reasons) {
    if (isZeroTime(r.since)) continue;
    if (isZeroTime(ret) || r.since < ret) ret = r.since;
  }
  return ret;
}

/** Spec §11.3: at least one reason is not excused at the given clock. */
export function seriouslyUnavailable(reasons: readonly UnavailableReason[], clock: bigint): boolean {
  for (const r of reasons) {
    if (r.reason === REASON_UNSCHEDULABLE || r.reason === REASON_MCD_PROCESSING) continue;
    const age = clock - r.since;
    if (r.reason === REASON_NOT_READY && age < 5n * MINUTE) continue;
    if ((r.reason === REASON_DISK_PRESSURE || r.reason === REASON_NETWORK_UNAVAILABLE) && age < MINUTE) continue;
    return true;
  }
  return false;
}
