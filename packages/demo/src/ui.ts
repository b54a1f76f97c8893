// The demo's terminal view: the steps, the live `lockstep status` text and the event log, redrawn
// in place; in --ci mode plain lines instead.
import type { LoggedEvent } from "./events.js";
import type { StepResult } from "./story.js";

export interface View {
  steps: string[];
  current: number;
  results: StepResult[];
  statusText: string;
  events: LoggedEvent[];
  note: string;
  /** What the current step has been waiting for, and why it may be stuck. */
  waiting?: string;
}

const MARK = { ok: "\x1b[32m✔\x1b[0m", fail: "\x1b[31m✘\x1b[0m", run: "\x1b[33m▶\x1b[0m", todo: " " };

export function renderView(v: View, width: number, height: number): string {
  const lines: string[] = [];
  lines.push(`\x1b[1mLockstep demo\x1b[0m — ${v.note}   (Ctrl-C stops everything)`);
  v.steps.forEach((s, i) => {
    const r = v.results[i];
    const mark = r ? (r.ok ? MARK.ok : MARK.fail) : i === v.current ? MARK.run : MARK.todo;
    lines.push(` ${mark} ${s}${r ? `  \x1b[2m${r.detail.slice(0, Math.max(0, width - s.length - 8))}\x1b[0m` : ""}`);
  });
  if (v.waiting) lines.push(`   \x1b[33m${v.waiting.slice(0, Math.max(0, width - 3))}\x1b[0m`);
  lines.push("", "\x1b[1m$ lockstep status --details nodes\x1b[0m");
  const statusLines = v.statusText.split("\n");
  const eventRows = Math.max(4, Math.floor((height - lines.length) / 3));
  const statusRows = Math.max(5, height - lines.length - eventRows - 3);
  lines.push(...statusLines.slice(0, statusRows).map((l) => l.slice(0, width)));
  if (statusLines.length > statusRows) lines.push(`\x1b[2m… ${statusLines.length - statusRows} more lines\x1b[0m`);
  lines.push("", "\x1b[1mLockstep events\x1b[0m");
  for (const e of v.events.slice(-eventRows)) lines.push(`${e.at.toISOString().slice(11, 19)} ${e.text}`.slice(0, width));
  return "\x1b[H\x1b[2J" + lines.join("\n") + "\n";
}

export function summaryLines(results: StepResult[], total: number, events: LoggedEvent[], runDir: string): string[] {
  const out = ["", "Lockstep demo summary"];
  for (const r of results) out.push(`  ${r.ok ? "ok  " : "FAIL"} ${r.name} (${(r.ms / 1000).toFixed(1)} s): ${r.detail}`);
  const passed = results.filter((r) => r.ok).length;
  out.push(`  ${passed}/${total} steps happened; ${events.length} events seen; logs in ${runDir}`);
  const byFact = new Map<string, number>();
  for (const e of events) byFact.set(e.fact, (byFact.get(e.fact) ?? 0) + 1);
  out.push(`  events: ${[...byFact].map(([f, n]) => `${f} ${n}`).join(", ")}`);
  return out;
}
