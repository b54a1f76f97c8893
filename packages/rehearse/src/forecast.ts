// What a rehearsal answers: per pool when it starts and finishes, what blocks, and whether the next
// minor would then be accepted. Plain data (`-o json` prints it as it is).

export type BlockerKind =
  | "pdb"
  | "lease"
  | "window"
  | "budget"
  | "paused-pool"
  | "skew"
  | "upgradeable"
  | "degraded"
  // From the status's own reading of the snapshot (status-reading.ts): what the replay holds or names.
  | "operator-degraded"
  | "operator-unavailable"
  | "mco-unavailable"
  | "cvo-failing"
  | "stalled"
  | "alert"
  | "status-error";

/** Every kind, for docs and tests. */
export const BLOCKER_KINDS: readonly BlockerKind[] = ["pdb", "lease", "window", "budget", "paused-pool", "skew", "upgradeable", "degraded", "operator-degraded", "operator-unavailable", "mco-unavailable", "cvo-failing", "stalled", "alert", "status-error"];

export interface Blocker {
  kind: BlockerKind;
  /** What blocks: a PDB (`ns/name`), a lease holder, a DisruptionBudget, a pool, an operator. */
  subject: string;
  pool?: string;
  /** Nodes held back (sorted). */
  nodes: string[];
  reason: string;
  /** Wall-clock instant it first held a node back. */
  from: string;
  /** When it stopped holding anything back; null when it still does at the end of the rehearsal. */
  until: string | null;
  /** Kinds read from the status: the objects concerned (`Kind/name`) and since when the condition holds (null: unknown). */
  objects?: string[];
  since?: string | null;
  /** The status insight it stands for (its summary). */
  insight?: string;
}

export interface SuspectTimestampOut {
  object: string;
  field: string;
  value: string;
}

export interface SkewCheck {
  allowed: boolean;
  /** Minor, ZStream, Major, Same, Downgrade. */
  kind: string;
  reasons: string[];
  message: string;
  /** Boot image and downgrade warnings (never blocking). */
  warnings: string[];
}

export interface PoolForecast {
  pool: string;
  nodes: number;
  /** Nodes already on the target when the rehearsal starts. */
  updatedAtStart: number;
  paused: boolean;
  /** "done": every node on the target; "blocked": some never get there; "idle": nothing to do. */
  state: "done" | "blocked" | "idle";
  start: string | null;
  finish: string | null;
  durationSeconds: number | null;
  /** Mean seconds of one node's update used for this pool, and where the figure comes from. */
  nodeSeconds: number;
  pace: "history" | "simulator";
  /** A config change within the release, as the node disruption policies apply it (drain? reboot?). */
  configChange?: { from: string; to: string; actions: string[]; drain: boolean; reboot: boolean };
}

export interface Forecast {
  /** The version the cluster is going to at the snapshot (ClusterVersion's desired). */
  current: string;
  /** The last version it completed; differs from `current` when the snapshot is mid-update. */
  completed: string;
  target: string;
  seed: number;
  /** The rehearsal's start: the dump's own "now" as oc picks it (clock.ts) unless given. */
  start: string;
  /** The status's assessment of the control plane in the snapshot ("" when not updating). */
  statusAssessment: string;
  /** Header warnings: suspect timestamps (far outside the update's span, not used), a status that could not be read. */
  warnings: string[];
  suspectTimestamps: SuspectTimestampOut[];
  /** Every pool done and the ClusterVersion Completed; null when something blocks. */
  finish: string | null;
  /** The CVO accepted the update (a minor update can be refused by its Upgradeable precondition). */
  accepted: boolean;
  pools: PoolForecast[];
  blockers: Blocker[];
  /** The skew-enforcer's check of this update on the snapshot (its verdict is what the CVO's precondition enforces). */
  update: SkewCheck;
  /**
   * The same check of the next minor on the rehearsed end state. `allowed` also needs no other
   * operator reporting Upgradeable=False: those are carried from the snapshot as they are (the replay
   * does not re-judge other operators), listed in `operators`.
   */
  nextMinor: SkewCheck & { version: string; operators: string[] };
  /** Virtual seconds simulated and events processed (for the curious; not a promise). */
  simulatedSeconds: number;
  events: number;
}

const pad = (s: string, n: number) => s + " ".repeat(Math.max(0, n - s.length));

export function humanSeconds(s: number | null): string {
  if (s === null) return "-";
  const m = Math.round(s / 60);
  if (m < 60) return `${m}m`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, "0")}m`;
}

const clock = (iso: string | null) => (iso === null ? "-" : iso.replace(/:\d{2}(\.\d+)?Z$/, "Z"));

export function renderForecast(f: Forecast): string {
  const lines: string[] = [];
  const inProgress = f.completed !== f.current ? ` (${f.current} in progress at the snapshot)` : "";
  lines.push(`Rehearsal of ${f.completed} -> ${f.target}${inProgress} (seed ${f.seed}), starting ${clock(f.start)}`);
  for (const w of f.warnings) lines.push(`Warning: ${w}`);
  lines.push(f.accepted ? `Forecast: ${f.finish ? `done at ${clock(f.finish)} (${humanSeconds((Date.parse(f.finish) - Date.parse(f.start)) / 1000)})` : "does not finish: blocked (see below)"}` : "Forecast: the update is not accepted");
  lines.push("");
  const header = ["POOL", "NODES", "STATE", "START", "FINISH", "DURATION", "PER NODE"];
  const rows = f.pools.map((p) => [p.pool, `${p.updatedAtStart}/${p.nodes}`, p.state + (p.paused ? " (paused)" : ""), clock(p.start), clock(p.finish), humanSeconds(p.durationSeconds), `${humanSeconds(p.nodeSeconds)} (${p.pace})`]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)) + 2);
  for (const r of [header, ...rows]) lines.push(r.map((c, i) => pad(c, widths[i]!)).join("").trimEnd());
  for (const p of f.pools.filter((x) => x.configChange)) {
    const c = p.configChange!;
    lines.push(`Pool ${p.pool}: config change ${c.from} -> ${c.to}: ${c.actions.join(", ")} (${c.drain ? "drain" : "no drain"}, ${c.reboot ? "reboot" : "no reboot"})`);
  }
  lines.push("");
  const line = (b: Blocker) => {
    const nodes = b.nodes.length ? ` [${b.nodes.length > 4 ? `${b.nodes.slice(0, 4).join(", ")}, +${b.nodes.length - 4}` : b.nodes.join(", ")}]` : "";
    const from = b.since !== undefined ? (b.since === null ? "since an unknown time" : `since ${clock(b.since)}`) : `from ${clock(b.from)}`;
    return `  ${b.kind} ${b.subject}${b.pool ? ` (pool ${b.pool})` : ""}${nodes}: ${b.reason}; ${from} ${b.until ? `until ${clock(b.until)}` : "to the end"}`;
  };
  // Firing alerts hold nothing in the replay: they are risks, listed apart.
  const holding = f.blockers.filter((b) => b.kind !== "alert");
  const risks = f.blockers.filter((b) => b.kind === "alert");
  if (holding.length === 0) lines.push("Blockers: none");
  else {
    lines.push("Blockers:");
    for (const b of holding) lines.push(line(b));
  }
  if (risks.length) {
    lines.push("Risks (firing alerts, as the status shows them):");
    for (const b of risks) lines.push(line(b));
  }
  lines.push("");
  const nm = f.nextMinor;
  lines.push(`Next minor ${nm.version}: ${nm.allowed ? "allowed" : `blocked (${[...nm.reasons, ...nm.operators.map((o) => o.split(":")[0])].join(", ")})`}`);
  if (nm.reasons.length && nm.message) lines.push(`  skew-enforcer: ${nm.message}`);
  if (nm.operators.length) lines.push(`  operators reporting Upgradeable=False in the snapshot (carried as they are): ${nm.operators.join("; ")}`);
  for (const w of [...new Set([...f.update.warnings, ...f.nextMinor.warnings])]) lines.push(`Warning: ${w}`);
  return lines.join("\n") + "\n";
}
