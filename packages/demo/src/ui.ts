// The demo's terminal view, as a pure function (state, columns, rows) → lines: the steps, the
// cluster's pools and nodes (from the status-aggregator's structured answer) and the event log,
// cut to fit the terminal so the title and the current step are always on screen.
//
// One clock: the demo's own wall clock. cluster-sim stamps objects with the wall clock and squeezes
// simulated durations by `timeScale` (packages/cluster-sim/README.md, "Time"), so the services'
// figures are consistent, but they describe a cluster running `timeScale` times faster than the
// demo's steps. So the view shows no time the services computed (Duration, SINCE, estimated
// completion) — only times the demo measured itself: time since it started, how long the current
// step has run, and when each event arrived.
import type { NodeInsight, UpdateStatus } from "@lockstep/contracts";
import { fit, pad, plain, style, visibleWidth } from "./ansi.js";
import type { LoggedEvent } from "./events.js";
import type { StepResult } from "./story.js";

export interface ViewState {
  versions: { current: string; target: string };
  timeScale: number;
  steps: readonly string[];
  /** Results of the steps that ended, in order. */
  results: readonly StepResult[];
  /** Index of the step running now. */
  current: number;
  /** The story is over (every step happened, one failed, or it was stopped): nothing is running. */
  ended: boolean;
  /** What the current step has been waiting for, and why it may be stuck. */
  waiting?: string;
  /** The latest answer of the status-aggregator; why the last call failed, if it did. */
  status?: UpdateStatus;
  statusError?: string;
  events: readonly LoggedEvent[];
  /** Wall clock, ms: when the demo started, when the current step started, when the story ended, now. */
  startedMs: number;
  stepStartedMs?: number;
  endedMs?: number;
  nowMs: number;
  /** How to point the CLI at this demo, one line each, preferred first; the first that fits is shown. */
  connect?: readonly string[];
}

const MARK = { ok: style.green("✔"), fail: style.red("✘"), run: style.yellow("▶") };
export const TITLE = "Lockstep demo";

/** "45s", "2m05s", "1h02m", on the wall clock; never negative. */
export function elapsed(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`;
}

/** The dot-suffix every node name shares (".us-east-2.compute.internal"), left out to save width. */
export function commonNameSuffix(names: readonly string[]): string {
  if (names.length < 2) return "";
  const parts = names.map((n) => n.split("."));
  let k = 0;
  while (parts.every((p) => p.length - k > 1 && p[p.length - 1 - k] === parts[0]![parts[0]!.length - 1 - k])) k++;
  return k === 0 ? "" : `.${parts[0]!.slice(-k).join(".")}`;
}

/** A node is done when it runs the target and its phase is Updated. */
export function nodeDone(n: NodeInsight, target: string): boolean {
  return n.record?.phase === "Updated" && n.version === target;
}

export interface PoolView {
  name: string;
  assessment: string;
  total: number;
  done: number;
  complete: boolean;
  paused: boolean;
}

/** Pools in the aggregator's order (then any only the nodes name), counted from the node insights. */
export function poolViews(st: UpdateStatus, target: string): PoolView[] {
  const names = [...new Set([...st.pools.map((p) => p.name), ...st.nodes.map((n) => n.pool)])].filter((n) => n);
  return names.map((name) => {
    const summary = st.pools.find((p) => p.name === name);
    const nodes = st.nodes.filter((n) => n.pool === name);
    const total = nodes.length || summary?.total || 0;
    const done = nodes.filter((n) => nodeDone(n, target)).length;
    const complete = total > 0 && done === total;
    return { name, assessment: summary?.assessment || (complete ? "Completed" : "-"), total, done, complete, paused: summary?.paused ?? false };
  });
}

/** Every pool has nodes and every node runs the target, Updated. */
export function everyPoolComplete(st: UpdateStatus | undefined, target: string): boolean {
  if (!st) return false;
  const pools = poolViews(st, target);
  return pools.length > 0 && pools.every((p) => p.complete);
}

/**
 * Folds a node's phase that goes back where it was: A→B followed by B→A for the same node (the
 * MCD marks itself Working before it requests the drain, so a node reads Draining, Updating,
 * Draining, Updating within a second) is left out of the log as the no-op it is.
 */
export function foldFlips(events: readonly LoggedEvent[]): LoggedEvent[] {
  const out: Array<LoggedEvent | undefined> = [];
  const lastOf = new Map<string, number>();
  const state = (m: any, prev: boolean) => (prev ? `${m.previousAssessment}/${m.previousPhase}` : `${m.insight?.record?.assessment}/${m.insight?.record?.phase}`);
  for (const e of events) {
    if (e.fact === "insight.changed" && typeof e.message?.node === "string") {
      const i = lastOf.get(e.message.node);
      const before = i === undefined ? undefined : out[i];
      if (before && state(before.message, true) === state(e.message, false) && state(before.message, false) === state(e.message, true)) {
        out[i!] = undefined;
        lastOf.delete(e.message.node);
        continue;
      }
      lastOf.set(e.message.node, out.length);
    }
    out.push(e);
  }
  return out.filter((e): e is LoggedEvent => e !== undefined);
}

function stepLine(i: number, name: string, total: number, r: StepResult | undefined, running: boolean, s: ViewState): string {
  if (running) return ` ${MARK.run} ${i + 1}/${total} ${name} ${style.dim(`(${elapsed(s.nowMs - (s.stepStartedMs ?? s.nowMs))})`)}`;
  if (!r) return style.dim(`   ${i + 1} ${name}`);
  return ` ${r.ok ? MARK.ok : MARK.fail} ${i + 1} ${name}  ${style.dim(r.detail.split("\n")[0]!)}`;
}

/** The steps in at most `budget` lines (at least one): the current step always, then its neighbours. */
function stepLines(s: ViewState, budget: number): string[] {
  const total = s.steps.length;
  const ok = s.results.filter((r) => r.ok).length;
  const failed = s.results.find((r) => !r.ok);
  if (s.ended) {
    const head = failed
      ? ` ${MARK.fail} step ${s.results.length}/${total} failed: ${s.steps[s.results.length - 1]} — ${failed.detail.split("\n")[0]}`
      : ok === total
        ? ` ${MARK.ok} All ${total} steps happened in ${elapsed((s.endedMs ?? s.nowMs) - s.startedMs)}`
        : ` ${MARK.fail} stopped after ${s.results.length} of ${total} steps`;
    const list = s.results.map((r, i) => stepLine(i, s.steps[i]!, total, r, false, s));
    return budget >= list.length + 1 ? [head, ...list] : [head];
  }
  const done = s.results.map((r, i) => stepLine(i, s.steps[i]!, total, r, false, s));
  const current = stepLine(s.current, s.steps[s.current] ?? "", total, undefined, true, s);
  const waiting = s.waiting ? [style.yellow(`     ${s.waiting}`)] : [];
  const upcoming = s.steps.map((name, i) => ({ name, i })).filter(({ i }) => i > s.current);
  const upLines = upcoming.map(({ name, i }) => stepLine(i, name, total, undefined, false, s));
  if (done.length + 1 + waiting.length + upLines.length <= budget) return [...done, current, ...waiting, ...upLines];
  const mandatory = [current, ...waiting].slice(0, Math.max(1, budget));
  const avail = budget - mandatory.length;
  // Individual lines for the most recent done steps and the next steps, in turn; one summary line
  // each for the rest.
  const cost = (d: number, u: number) => d + u + (d < done.length ? 1 : 0) + (u < upLines.length ? 1 : 0);
  let nd = 0;
  let nu = 0;
  for (let grew = true; grew; ) {
    grew = false;
    if (nd < done.length && cost(nd + 1, nu) <= avail) {
      nd++;
      grew = true;
    }
    if (nu < upLines.length && cost(nd, nu + 1) <= avail) {
      nu++;
      grew = true;
    }
  }
  const lines: string[] = [];
  let used = nd + nu;
  const hiddenDone = done.length - nd;
  if (hiddenDone > 0 && used < avail) {
    lines.push(` ${MARK.ok} ${hiddenDone === 1 ? "step 1 happened" : `steps 1–${hiddenDone} happened`}`);
    used++;
  }
  lines.push(...done.slice(hiddenDone), ...mandatory, ...upLines.slice(0, nu));
  const hiddenUp = upLines.length - nu;
  if (hiddenUp > 0 && used < avail) lines.push(style.dim(`   … ${hiddenUp} more: ${upcoming.slice(nu).map((u) => u.name).join(", ")}`));
  return lines;
}

function statusHead(s: ViewState): string {
  const st = s.status;
  if (!st) return style.bold("Cluster ") + style.dim(`(status unavailable${s.statusError ? `: ${s.statusError}` : ""})`);
  const cp = st.controlPlane;
  const what = st.updating
    ? `updating to ${cp?.targetVersion || s.versions.target}`
    : `not updating${everyPoolComplete(st, s.versions.target) ? ` · every node on ${s.versions.target}` : ""}`;
  const control = st.updating && cp ? ` · control plane ${cp.assessment} ${Math.round(cp.completion)}%` : "";
  // An older answer is still shown when the latest call failed, but never as if it were current.
  const stale = s.statusError ? style.yellow(` · not current: ${s.statusError}`) : "";
  return `${style.bold("Cluster")} ${what}${control}${stale}`;
}

function poolLine(p: PoolView, target: string, width: number): string {
  const mark = p.complete ? MARK.ok : " ";
  const pct = p.total ? Math.floor((100 * p.done) / p.total) : 0;
  const note = p.complete ? `every node on ${target}` : p.paused ? "paused" : "";
  return ` ${mark} ${pad(p.name, width)}  ${pad(p.assessment, 11)}  ${pad(`${pct}% (${p.done}/${p.total})`, 11)}  ${note}`.trimEnd();
}

const ASSESS_RANK: Record<string, number> = { Degraded: 0, Unavailable: 1, Progressing: 2, Outdated: 3, Excluded: 4, Completed: 5 };

/** The node table in at most `budget` lines (header included), the least finished nodes kept first. */
function nodeLines(st: UpdateStatus, pools: readonly PoolView[], budget: number, columns: number): string[] {
  if (budget < 2 || st.nodes.length === 0) return [];
  const suffix = commonNameSuffix(st.nodes.map((n) => n.name));
  const short = (n: string) => (suffix && n.endsWith(suffix) ? n.slice(0, -suffix.length) : n);
  const order = (n: NodeInsight) => pools.findIndex((p) => p.name === n.pool);
  const all = [...st.nodes].sort((a, b) => order(a) - order(b) || a.name.localeCompare(b.name, undefined, { numeric: true }));
  let shown = all;
  if (all.length > budget - 1) {
    const keep = new Set(
      [...all]
        .sort((a, b) => (ASSESS_RANK[a.record?.assessment ?? ""] ?? 9) - (ASSESS_RANK[b.record?.assessment ?? ""] ?? 9))
        .slice(0, budget - 2),
    );
    shown = all.filter((n) => keep.has(n));
  }
  const nameW = Math.max(4, ...shown.map((n) => short(n.name).length));
  const poolW = Math.max(4, ...shown.map((n) => n.pool.length));
  const row = (cells: string[]) => `   ${pad(cells[0]!, nameW)}  ${pad(cells[1]!, poolW)}  ${pad(cells[2]!, 11)}  ${pad(cells[3]!, 9)}  ${pad(cells[4]!, 8)}  ${cells[5]}`.trimEnd();
  const lines = [style.dim(row(["NODE", "POOL", "ASSESSMENT", "PHASE", "VERSION", "MESSAGE"]))];
  for (const n of shown) {
    const r = n.record;
    const message = (r?.messageCell || n.message).split("\n")[0]!;
    lines.push(row([short(n.name), n.pool, r?.assessment ?? "-", r?.phase ?? "-", n.version || "-", message]));
  }
  if (shown.length < all.length) {
    const hidden = all.filter((n) => !shown.includes(n));
    const kinds = [...new Set(hidden.map((n) => `${n.record?.assessment ?? "-"}/${n.record?.phase ?? "-"}`))].join(", ");
    lines.push(style.dim(`   … ${hidden.length} more node${hidden.length === 1 ? "" : "s"} (${kinds})`));
  }
  return lines.map((l) => fit(l, columns));
}

function eventLines(s: ViewState, budget: number, suffix: string): string[] {
  if (budget < 2) return [];
  const events = foldFlips(s.events);
  const shown = events.slice(-(budget - 1));
  const head = `${style.bold("Events")}${events.length > shown.length ? style.dim(` (last ${shown.length} of ${events.length}; times since start)`) : style.dim(" (times since start)")}`;
  return [head, ...shown.map((e) => `${style.dim(elapsed(e.at.getTime() - s.startedMs).padStart(6))} ${suffix ? e.text.split(suffix).join("") : e.text}`)];
}

/** The screen for `state` on a `columns` × `rows` terminal: at most `rows` lines, none wider than `columns`. */
export function renderView(s: ViewState, columns: number, rows: number): string[] {
  if (rows < 1 || columns < 1) return [];
  let left = rows;
  const take = (n: number) => {
    const t = Math.max(0, Math.min(n, left));
    left -= t;
    return t;
  };
  const st = s.status;
  const pools = st ? poolViews(st, s.versions.target) : [];
  const suffix = st ? commonNameSuffix(st.nodes.map((n) => n.name)) : "";
  const fullSteps = stepLines(s, Number.MAX_SAFE_INTEGER).length;

  // Priorities: title, current step (+ what it waits for), pools, a few events, one more line of
  // steps, the CLI hint, nodes, the other steps, more events.
  take(1);
  const stepsBase = take(s.ended ? 1 : 1 + (s.waiting ? 1 : 0));
  const poolsN = take(1 + pools.length);
  const eventsBase = take(4);
  const stepsMore = take(Math.min(1, fullSteps - stepsBase));
  const connectN = take(s.connect?.length ? 1 : 0);
  const nodesN = take(st && st.nodes.length ? 1 + st.nodes.length : 0);
  const stepsN = stepsBase + stepsMore + take(fullSteps - stepsBase - stepsMore);
  const eventsN = eventsBase + take(Math.max(0, Math.min(s.events.length + 1, rows) - eventsBase));

  const poolW = Math.max(4, ...pools.map((p) => p.name.length));
  const title = `${style.bold(TITLE)} — ${s.versions.current} → ${s.versions.target} · cluster at ${s.timeScale}x · ${elapsed(s.nowMs - s.startedMs)}`;
  const stopHint = [`   ${style.dim("(Ctrl-C stops everything)")}`, `   ${style.dim("(Ctrl-C stops)")}`, ""].find((h) => visibleWidth(title) + visibleWidth(h) <= columns);
  const titleLine = `${title}${stopHint ?? ""}`;
  const lines = [titleLine];
  lines.push(...stepLines(s, stepsN));
  if (poolsN > 0) lines.push(...[statusHead(s), ...pools.map((p) => poolLine(p, s.versions.target, poolW))].slice(0, poolsN));
  if (st) lines.push(...nodeLines(st, pools, nodesN, columns));
  lines.push(...eventLines(s, eventsN, suffix));
  if (connectN > 0 && s.connect?.length) {
    const hint = s.connect.find((c) => visibleWidth(c) <= columns) ?? s.connect[s.connect.length - 1]!;
    lines.push(style.dim(hint));
  }
  return lines.slice(0, rows).map((l) => fit(l, columns));
}

/**
 * The whole screen, drawn in place: home, each line cleared to its end, the rest of the screen
 * cleared, and no newline after the last line (a final newline on the last row scrolls the screen).
 */
export function screen(lines: readonly string[]): string {
  return `\x1b[H${lines.map((l) => `${l}\x1b[K`).join("\r\n")}\x1b[J`;
}

/** What is wrong with a final screen (empty when right): it fits, shows the title, nothing runs, every pool complete. */
export function finalScreenProblems(s: ViewState, lines: readonly string[], columns: number, rows: number): string[] {
  const problems: string[] = [];
  if (lines.length > rows) problems.push(`${lines.length} lines on a ${rows}-row terminal`);
  lines.forEach((l, i) => visibleWidth(l) > columns && problems.push(`line ${i + 1} is ${visibleWidth(l)} wide on a ${columns}-column terminal`));
  if (!plain(lines[0] ?? "").startsWith(TITLE)) problems.push("the title is not on the first line");
  if (!s.ended) problems.push("the story has not ended");
  if (lines.some((l) => plain(l).includes("▶"))) problems.push("a step is still shown running");
  if (!s.status) problems.push(`no status to show${s.statusError ? ` (${s.statusError})` : ""}`);
  else if (s.statusError) problems.push(`the status shown is not current (${s.statusError})`);
  else {
    for (const p of poolViews(s.status, s.versions.target)) {
      if (!p.complete) problems.push(`pool ${p.name} is not complete: ${p.done}/${p.total} nodes on ${s.versions.target}`);
      else if (!lines.some((l) => plain(l).startsWith(` ✔ ${p.name} `))) problems.push(`pool ${p.name} is complete but not shown so`);
    }
    if (poolViews(s.status, s.versions.target).length === 0) problems.push("no pools in the status");
  }
  return problems;
}

export function summaryLines(results: StepResult[], total: number, events: readonly LoggedEvent[], runDir: string): string[] {
  const out = ["", "Lockstep demo summary"];
  for (const r of results) out.push(`  ${r.ok ? "ok  " : "FAIL"} ${r.name} (${(r.ms / 1000).toFixed(1)} s): ${r.detail}`);
  const passed = results.filter((r) => r.ok).length;
  out.push(`  ${passed}/${total} steps happened; ${events.length} events seen; logs in ${runDir}`);
  const byFact = new Map<string, number>();
  for (const e of events) byFact.set(e.fact, (byFact.get(e.fact) ?? 0) + 1);
  out.push(`  events: ${[...byFact].map(([f, n]) => `${f} ${n}`).join(", ")}`);
  return out;
}
