// One reading of the snapshot for both views: the rehearsal starts from the very evaluation that
// `lockstep status` prints (@lockstep/insights), and turns every Error-level health insight (and a
// Stalled control plane, and a failing ClusterVersion) into a hold the replay honours or a blocker
// it names. A forecast that says "done" where the status says "stalled" is the one answer an admin
// may act on without looking further, so nothing the status calls an error is dropped. Pure.
import { evaluate, inputsFromDocuments, type Evaluation, type HealthInsight } from "@lockstep/insights";
import type { BlockerKind } from "./forecast.js";
import type { DumpClock } from "./clock.js";
import type { RehearsalSnapshot } from "./snapshot.js";

export const MACHINE_CONFIG = "machine-config";

/** What a hold stops in the replay. */
export type HoldScope =
  /** The named operator does not reach the target: the CVO waits at its run level, the update never completes. */
  | "operator"
  /** The CVO does not complete the update (it may still walk the operators it can). */
  | "cvo"
  /** The MCO starts no node (a failing controller rolls no pool). */
  | "mco"
  /** Named, not replayed (a node the status calls degraded: the replay keeps it as it is). */
  | "none";

export interface Hold {
  kind: BlockerKind;
  subject: string;
  /** `Kind/name` of the objects concerned. */
  objects: string[];
  scope: HoldScope;
  reason: string;
  /** When the condition started (RFC 3339), null when the status does not know. */
  since: string | null;
  /** The status insight it comes from (its summary), so a reader can match both views. */
  insight?: string;
}

export interface StatusReading {
  evaluation: Evaluation | undefined;
  /** `Stalled`, `Progressing`, … ; "" when the status had nothing to assess (not updating). */
  assessment: string;
  /** Error and Critical insights of the status, as it prints them. */
  errors: HealthInsight[];
  holds: Hold[];
  /** Why the status could not be evaluated (the rehearsal goes on without it). */
  problem?: string;
}

const SEVERE = new Set(["Error", "Critical"]);
/** How much of an insight's description a blocker's reason carries (the status has the rest). */
const REASON_DETAIL = 160;
const NS_PER_MS = 1_000_000n;

function isoOf(ns: bigint, clock: Pick<DumpClock, "earliest" | "latest">): string | null {
  const ms = Number(ns / NS_PER_MS);
  // ZERO_TIME (unknown) and suspect times are not shown as a since-when.
  if (ns <= 0n || !Number.isFinite(ms) || ms > clock.latest) return null;
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** The Error-level insight as a hold: which blocker kind, and what the replay stops for it. */
export function holdOfInsight(i: HealthInsight, clock: Pick<DumpClock, "earliest" | "latest">): Hold {
  const r = i.resources[0];
  const objects = i.resources.map((x) => `${x.kind}/${x.namespace ? `${x.namespace}/` : ""}${x.name}`);
  const since = isoOf(i.startedAt, clock);
  const first = i.description.split("\n")[0] ?? "";
  const detail = first.length > REASON_DETAIL ? `${first.slice(0, REASON_DETAIL)}…` : first;
  const base = { objects, since, reason: `${i.summary}${detail ? `: ${detail}` : ""}`, insight: i.summary };
  if (r?.kind === "ClusterOperator") {
    const unavailable = / is unavailable /.test(i.summary);
    if (r.name === MACHINE_CONFIG) return { ...base, kind: "mco-unavailable", subject: r.name, scope: "mco" };
    return { ...base, kind: unavailable ? "operator-unavailable" : "operator-degraded", subject: r.name, scope: "operator" };
  }
  if (r?.kind === "Node") return { ...base, kind: "degraded", subject: r.name, scope: "none" };
  if (r?.kind === "Alert") return { ...base, kind: "alert", subject: r.name, scope: "none" };
  if (r?.kind === "ClusterVersion") return { ...base, kind: "cvo-failing", subject: r.name, scope: "cvo" };
  // An insight the replay has no model of still holds the update: named, and the update not completed.
  return { ...base, kind: "status-error", subject: r?.name ?? i.summary, scope: "cvo" };
}

export function readStatus(snap: RehearsalSnapshot, clock: DumpClock): StatusReading {
  let evaluation: Evaluation;
  try {
    const list = (items: unknown[]) => ({ kind: "List", items });
    const inputs = inputsFromDocuments({
      clusterVersion: snap.clusterVersion,
      clusterOperators: list(snap.clusterOperators),
      machineConfigPools: list(snap.pools),
      machineConfigs: list(snap.machineConfigs),
      nodes: list(snap.nodes),
      ...(snap.alerts !== undefined ? { alerts: snap.alerts } : {}),
    });
    const now = BigInt(clock.now.getTime()) * NS_PER_MS;
    evaluation = evaluate(inputs, { now, wallClock: now });
  } catch (err) {
    return { evaluation: undefined, assessment: "", errors: [], holds: [], problem: err instanceof Error ? err.message : String(err) };
  }
  if (evaluation.notUpdating) return { evaluation, assessment: "", errors: [], holds: [] };
  const errors = evaluation.health.insights.filter((i) => SEVERE.has(i.level));
  const holds = errors.map((i) => holdOfInsight(i, clock));
  // Firing alerts the status shows at a lower level are carried too, as risks (kind "alert" holds nothing).
  for (const i of evaluation.health.insights) if (!SEVERE.has(i.level) && i.resources[0]?.kind === "Alert") holds.push(holdOfInsight(i, clock));
  const cv = snap.clusterVersion;
  // The CVO failing to proceed (a Warning in the status) holds the update as the CVO does.
  const failing = (cv.status?.conditions ?? []).find((c: { type?: string; status?: string }) => c.type === "Failing" && c.status === "True");
  if (failing && !holds.some((h) => h.kind === "cvo-failing")) {
    const t = Date.parse(failing.lastTransitionTime ?? "");
    holds.push({
      kind: "cvo-failing",
      subject: cv.metadata.name,
      objects: [`ClusterVersion/${cv.metadata.name}`],
      scope: "cvo",
      reason: `Cluster Version ${cv.metadata.name} is failing to proceed with the update (${failing.reason ?? ""})${failing.message ? `: ${String(failing.message).split("\n")[0]}` : ""}`,
      since: Number.isFinite(t) && t <= clock.latest ? new Date(t).toISOString().replace(/\.\d{3}Z$/, "Z") : null,
    });
  }
  const assessment = evaluation.controlPlane.assessment;
  if (assessment === "Stalled") {
    holds.push({
      kind: "stalled",
      subject: cv.metadata.name,
      objects: [`ClusterVersion/${cv.metadata.name}`],
      scope: "cvo",
      reason: `the status assesses the control plane update as Stalled (${evaluation.controlPlane.operators.updated} of ${evaluation.controlPlane.operators.total} operators updated, well past its estimate); the replay cannot tell when it moves again`,
      since: null,
    });
  }
  return { evaluation, assessment, errors, holds };
}
