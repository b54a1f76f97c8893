// Which facts an evaluation makes due, given the last ones on the event stream. Pure: the ids are
// derived from the previous fact's stream sequence, so replicas (and a restarted process) that saw
// the same previous fact publish the same id and the stream de-duplicates them.
import { createHash } from "node:crypto";
import { type SkewEvaluated, SkewReport, type UpdateCompleted, type UpgradeableChanged } from "@lockstep/contracts";
import { skewReportChanged, type SkewEvaluation, toSkewReport } from "@lockstep/skew-rules";

/** The newest fact of each kind on the stream (seq 0 = none yet). */
export interface LastFacts {
  skewEvaluated?: { seq: number; report: SkewReport } | undefined;
  upgradeableChanged?: { seq: number; upgradeable: boolean; reason: string } | undefined;
  updateCompleted?: { seq: number; version: string } | undefined;
}

export type DueFact =
  | { kind: "skewEvaluated"; id: string; message: SkewEvaluated }
  | { kind: "upgradeableChanged"; id: string; message: UpgradeableChanged }
  | { kind: "updateCompleted"; id: string; message: UpdateCompleted };

function digest(value: unknown): string {
  return createHash("sha256").update(JSON.stringify(value)).digest("hex").slice(0, 16);
}

/**
 * - `skew.evaluated` when the report differs from the last one published;
 * - `upgradeable.changed` when the verdict (status or reason) differs; message-only changes (node
 *   counts moving) are carried by `skew.evaluated`;
 * - `update.completed` once per target version, when every node in every pool runs it.
 */
export function dueFacts(last: LastFacts, e: SkewEvaluation): DueFact[] {
  const out: DueFact[] = [];
  // Both sides in the wire form, so a report read back from the stream compares equal.
  const report = SkewReport.fromPartial(toSkewReport(e));
  const previous = last.skewEvaluated ? SkewReport.fromPartial(last.skewEvaluated.report) : undefined;
  if (skewReportChanged(previous, report)) {
    out.push({ kind: "skewEvaluated", id: `skew.evaluated/${last.skewEvaluated?.seq ?? 0}/${digest(report)}`, message: { report } });
  }
  const upgradeable = e.upgradeable.status === "True";
  const prev = last.upgradeableChanged;
  if (!prev || prev.upgradeable !== upgradeable || prev.reason !== e.upgradeable.reason) {
    out.push({
      kind: "upgradeableChanged",
      id: `upgradeable.changed/${prev?.seq ?? 0}/${upgradeable}/${e.upgradeable.reason}`,
      message: { upgradeable, reason: e.upgradeable.reason, message: e.upgradeable.message },
    });
  }
  const c = e.completion;
  if (c.complete && c.targetVersion !== "" && last.updateCompleted?.version !== c.targetVersion) {
    out.push({
      kind: "updateCompleted",
      id: `update.completed/${c.targetVersion}`,
      message: { version: c.targetVersion, pools: c.pools.map((p) => p.pool), nodes: c.nodes },
    });
  }
  return out;
}
