// What held nodes back during the rehearsal: one entry per kind, subject and pool, the nodes it ever
// held, those it still holds, and when it last let go.
import type { Blocker, BlockerKind } from "./forecast.js";

interface Entry {
  kind: BlockerKind;
  subject: string;
  pool?: string | undefined;
  reason: string;
  from: number;
  waiting: Set<string>;
  all: Set<string>;
  until: number | null;
  extra?: Pick<Blocker, "objects" | "since" | "insight">;
}

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");

export class BlockerLedger {
  private readonly entries = new Map<string, Entry>();

  /** `node` (if any) is held back by this blocker from now on. */
  hold(at: number, kind: BlockerKind, subject: string, pool: string | undefined, node: string | undefined, reason: string, extra?: Pick<Blocker, "objects" | "since" | "insight">): void {
    const key = `${kind}/${subject}/${pool ?? ""}`;
    let e = this.entries.get(key);
    if (!e) this.entries.set(key, (e = { kind, subject, pool, reason, from: at, waiting: new Set(), all: new Set(), until: null }));
    if (extra) e.extra = { ...e.extra, ...extra };
    if (node) {
      e.waiting.add(node);
      e.all.add(node);
    }
    e.until = null;
  }

  /** `node` went on: blockers of `kinds` (all when omitted) no longer hold it. */
  release(at: number, node: string, kinds?: readonly BlockerKind[]): void {
    for (const e of this.entries.values()) {
      if (kinds && !kinds.includes(e.kind)) continue;
      if (e.waiting.delete(node) && e.waiting.size === 0) e.until = at;
    }
  }

  /** Whether any blocker ever held `node`. */
  names(node: string): boolean {
    for (const e of this.entries.values()) if (e.all.has(node)) return true;
    return false;
  }

  list(): Blocker[] {
    return [...this.entries.values()]
      .map((e) => ({ kind: e.kind, subject: e.subject, ...(e.pool ? { pool: e.pool } : {}), nodes: [...e.all].sort(), reason: e.reason, from: iso(e.from), until: e.waiting.size === 0 && e.until !== null && !e.extra ? iso(e.until) : null, ...(e.extra ?? {}) }))
      .sort((a, b) => (a.kind + a.subject + (a.pool ?? "") < b.kind + b.subject + (b.pool ?? "") ? -1 : 1));
  }
}
