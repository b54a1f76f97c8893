// Spec §12: the exact text of `oc adm upgrade status`, as a pure function of the evaluation.
import { areaEnabled, type Details } from "./details.js";
import { shortDuration, truncateDuration } from "./duration.js";
import type { ControlPlaneSummary, Evaluation, HealthInsight, HealthSection, PoolSummary } from "./model.js";
import { visibleRows } from "./node-table.js";
import { poolComplete } from "./pool-summary.js";
import { pct } from "./pct.js";
import { tabwrite } from "./tabwriter.js";
import { MINUTE, SECOND, formatRFC3339, isZeroTime } from "./time.js";

const label = (l: string): string => l.padEnd(17, " ");

/** Ellipsis on code points: at most max, the last three being `...`. */
export function ellipsis(s: string, max: number): string {
  const cps = Array.from(s);
  if (cps.length <= max) return s;
  return `${cps.slice(0, Math.max(max, 3) - 3).join("")}...`;
}

function etaText(cp: ControlPlaneSummary): string {
  if (cp.multiArch) return "N/A for Multi-Architecture Migration";
  if (cp.estTimeToComplete < -10n * MINUTE) return `N/A; estimate duration was ${shortDuration(cp.estDuration)}`;
  if (cp.estTimeToComplete < 10n * MINUTE) return `<${shortDuration(10n * MINUTE)}`;
  return shortDuration(cp.estTimeToComplete);
}

function renderControlPlane(cp: ControlPlaneSummary, now: bigint, operatorsArea: boolean): string {
  if (cp.completed) {
    return `= Control Plane =\nUpdate to ${cp.targetVersion} successfully completed at ${formatRFC3339(cp.completionAt)} (duration: ${shortDuration(cp.duration)})\n`;
  }
  const ops = cp.operators;
  let out = "= Control Plane =\n";
  out += `${label("Assessment:")}${cp.assessment}\n`;
  out += `${label("Target Version:")}${cp.targetVersionText}\n`;
  if (ops.updating.length > 0) out += `${label("Updating:")}${ops.updating.map((o) => o.name).join(", ")}\n`;
  out += `${label("Completion:")}${pct(cp.completion)}% (${ops.updated} operators updated, ${ops.updating.length} updating, ${ops.waiting} waiting)\n`;
  const eta = cp.estTimeToComplete !== 0n ? ` (Est. Time Remaining: ${etaText(cp)})` : "";
  out += `${label("Duration:")}${shortDuration(cp.duration)}${eta}\n`;
  let health = `${ops.total - ops.unavailable - ops.degraded} Healthy`;
  if (ops.unavailable > 0) health += `, ${ops.unavailable} Unavailable`;
  if (ops.degraded > 0) health += `, ${ops.degraded} Available but degraded`;
  out += `${label("Operator Health:")}${health}\n`;

  if (operatorsArea && ops.updating.length > 0) {
    out += "\nUpdating Cluster Operators";
    let table = "\nNAME\tSINCE\tREASON\tMESSAGE\n";
    for (const o of ops.updating) {
      // SINCE is deliberately not truncated first (spec §10.2 quirk).
      table += `${o.name}\t${shortDuration(now - o.since)}\t${ellipsis(o.reason || "-", 20)}\t`;
      o.message.split("\n").forEach((line, i) => {
        table += i === 0 ? `${line}\n` : `\t\t\t${line}\n`;
      });
    }
    out += tabwrite(table);
  }
  return out;
}

function renderNodes(pool: PoolSummary, full: boolean, master: boolean): string {
  if (pool.empty) return "";
  let out: string;
  if (master) {
    if (poolComplete(pool)) return `\nAll control plane nodes successfully updated to ${pool.nodes[0]?.version ?? ""}\n`;
    out = "\nControl Plane Nodes";
  } else {
    out = `\nWorker Pool Nodes: ${pool.name}`;
  }
  const { rows, omitted } = visibleRows(pool.nodes, full);
  let table = "\nNAME\tASSESSMENT\tPHASE\tVERSION\tEST\tMESSAGE\n";
  for (const n of rows) {
    table += `${n.name}\t${n.assessment}\t${n.phase}\t${n.version || "?"}\t${n.estimate}\t${n.message}\n`;
  }
  out += tabwrite(table);
  if (omitted.total > 0) {
    out += `...\nOmitted additional ${omitted.total} Total, ${omitted.completed} Completed, ${omitted.available} Available, ${omitted.progressing} Progressing, ${omitted.outdated} Outdated, ${omitted.draining} Draining, ${omitted.excluded} Excluded, and 0 Degraded nodes.\nPass along --details=nodes to see all information.\n`;
  }
  return out;
}

export function poolStatusText(pool: PoolSummary): string {
  const c = pool.counters;
  let status = `${c.available} Available, ${c.progressing} Progressing, ${c.draining} Draining`;
  // Lockstep decision: Excluded before Degraded (upstream iterates a Go map).
  if (c.excluded > 0) status += `, ${c.excluded} Excluded`;
  if (c.degraded > 0) status += `, ${c.degraded} Degraded`;
  return status;
}

function renderPools(pools: readonly PoolSummary[]): string {
  let table = "\nWORKER POOL\tASSESSMENT\tCOMPLETION\tSTATUS\n";
  for (const p of pools) {
    const c = p.counters;
    if (p.empty) table += `${p.name}\tEmpty\t\t${c.total} Total\n`;
    else table += `${p.name}\t${p.assessment}\t${pct(p.completion)}% (${c.total - c.outdated}/${c.total})\t${poolStatusText(p)}\n`;
  }
  return tabwrite(table);
}

function since(insight: HealthInsight, now: bigint): string {
  if (isZeroTime(insight.startedAt)) return "-";
  return shortDuration(truncateDuration(now - insight.startedAt, SECOND));
}

function resourceLines(insight: HealthInsight): string[] {
  const byKind = new Map<string, string[]>();
  let pad = 0;
  for (const r of insight.resources) {
    let kind = `${r.kind.toLowerCase()}s`;
    if (r.group) kind += `.${r.group}`;
    kind += ": ";
    pad = Math.max(pad, kind.length);
    const name = r.namespace ? `${r.namespace}/${r.name}` : r.name;
    const names = byKind.get(kind);
    if (names) names.push(name);
    else byKind.set(kind, [name]);
  }
  // Upstream appends one kind entry per resource, so a kind with several resources repeats.
  const kinds = insight.resources.map((r) => `${r.kind.toLowerCase()}s${r.group ? `.${r.group}` : ""}: `).sort(byteCompare);
  return kinds.map((k) => `    ${k.padEnd(pad, " ")}${[...(byKind.get(k) ?? [])].sort(byteCompare).join(", ")}`);
}

const byteCompare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function renderHealth(health: HealthSection, now: bigint, detailed: boolean): string {
  let out = "= Update Health =\n";
  const items = health.insights;
  if (detailed && !health.fallback) {
    const pad = "Description: ".length;
    const field = (name: string, value: string): string => `  ${name.padEnd(pad, " ")}${value}\n`;
    items.forEach((i, idx) => {
      out += `Message: ${i.summary}\n`;
      out += field("Since:", since(i, now));
      out += field("Level:", i.level);
      out += field("Impact:", i.impact);
      out += field("Reference:", i.reference);
      if (i.resources.length > 0) {
        out += "  Resources:\n";
        for (const line of resourceLines(i)) out += `${line}\n`;
      }
      out += field("Description:", i.description.split("\n").join(`\n${" ".repeat(pad + 2)}, `));
      if (idx + 1 < items.length) out += "\n";
    });
    return out;
  }
  let table = "SINCE\tLEVEL\tIMPACT\tMESSAGE\n";
  for (const i of items) table += `${since(i, now)}\t${i.level}\t${i.impact}\t${i.summary}\n`;
  out += tabwrite(table);
  if (items.length > 1 || items[0]?.level !== "Info") {
    out += "\nRun with --details=health for additional description and links to related online documentation\n";
  }
  return out;
}

export function render(evaluation: Evaluation, details: Details): string {
  if (evaluation.notUpdating) return "The cluster is not updating.\n";
  const nodesFull = areaEnabled(details, "nodes");
  let out = renderControlPlane(evaluation.controlPlane, evaluation.now, areaEnabled(details, "operators"));
  if (evaluation.masterPool) out += renderNodes(evaluation.masterPool, nodesFull, true);
  if (evaluation.workerPools.some((p) => !p.empty)) {
    out += "\n= Worker Upgrade =\n";
    out += renderPools(evaluation.workerPools);
    for (const p of evaluation.workerPools) out += renderNodes(p, nodesFull, false);
  }
  out += "\n";
  out += renderHealth(evaluation.health, evaluation.now, areaEnabled(details, "health"));
  return out;
}
