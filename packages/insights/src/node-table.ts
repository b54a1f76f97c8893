// Spec §6: node table order, truncation and the Omitted counters.
import type { NodeAssessment, NodePhase, NodeRecord } from "./model.js";

const ASSESSMENT_RANK: Record<NodeAssessment, number> = {
  Degraded: 0,
  Unavailable: 1,
  Progressing: 2,
  Excluded: 3,
  Outdated: 4,
  Completed: 5,
};

const PHASE_RANK: Record<NodePhase, number> = {
  Draining: 0,
  Updating: 1,
  Rebooting: 2,
  Paused: 3,
  Pending: 4,
  Updated: 5,
};

export function compareNodes(a: NodeRecord, b: NodeRecord): number {
  const byAssessment = ASSESSMENT_RANK[a.assessment] - ASSESSMENT_RANK[b.assessment];
  if (byAssessment !== 0) return byAssessment;
  const byPhase = PHASE_RANK[a.phase] - PHASE_RANK[b.phase];
  if (byPhase !== 0) return byPhase;
  // Byte-wise like Go; never localeCompare.
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

export function sortNodes(nodes: readonly NodeRecord[]): NodeRecord[] {
  return [...nodes].sort(compareNodes);
}

/** Rows always shown in the truncated table: degraded, or unavailable and not updating. */
export const isAlwaysShown = (n: NodeRecord): boolean => n.isDegraded || (n.isUnavailable && !n.isUpdating);

export const TRUNCATE_AT = 10;

export interface OmittedCounts {
  total: number;
  completed: number;
  available: number;
  progressing: number;
  outdated: number;
  draining: number;
  excluded: number;
}

export interface VisibleRows {
  rows: NodeRecord[];
  omitted: OmittedCounts;
}

/** Rows to print (sorted input) and counters over the hidden ones. */
export function visibleRows(sorted: readonly NodeRecord[], full: boolean): VisibleRows {
  const omitted: OmittedCounts = { total: 0, completed: 0, available: 0, progressing: 0, outdated: 0, draining: 0, excluded: 0 };
  const rows: NodeRecord[] = [];
  sorted.forEach((n, i) => {
    if (full || i < TRUNCATE_AT || isAlwaysShown(n)) {
      rows.push(n);
      return;
    }
    omitted.total++;
    if (n.isUpdated) omitted.completed++;
    else omitted.outdated++;
    if (!n.isUnavailable) omitted.available++;
    if (n.phase === "Draining") omitted.draining++;
    if (n.phase === "Paused") omitted.excluded++;
    if (n.assessment === "Progressing") omitted.progressing++;
  });
  return { rows, omitted };
}
