// Restarts what crashed, with exponential backoff, and says so: each crash, restart and failed
// restart is reported through onEvent (the demo shows it on screen and in its event log; `lockstep
// up` logs it). A target that stays up for `resetAfterMs` starts again from the shortest delay.

export interface Supervisable {
  readonly name: string;
  /** Called when the target exits without being asked to. */
  onUnexpectedExit(l: (code: number | null, signal: NodeJS.Signals | null) => void): void;
  /** Starts the target again and resolves when it is ready. */
  restart(): Promise<void>;
}

export type SupervisorEvent =
  | { kind: "crashed"; name: string; code: number | null; signal: NodeJS.Signals | null; attempt: number; delayMs: number; at: Date }
  | { kind: "restarted"; name: string; attempt: number; at: Date }
  | { kind: "restart-failed"; name: string; attempt: number; error: string; delayMs: number; at: Date };

export interface SupervisorOptions {
  /** First delay before a restart; doubled on each crash in a row. Default 1 s. */
  initialDelayMs?: number;
  /** Longest delay. Default 30 s. */
  maxDelayMs?: number;
  /** Up this long after a restart counts as healthy again (the next crash is attempt 1). Default 60 s. */
  resetAfterMs?: number;
  onEvent?(e: SupervisorEvent): void;
}

interface TargetState {
  target: Supervisable;
  attempt: number;
  lastRestartAt: number;
  restarting: boolean;
  timer?: NodeJS.Timeout;
}

/** One-line description of an event, for logs and the demo's event log. */
export function describeSupervisorEvent(e: SupervisorEvent): string {
  const secs = (ms: number) => `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
  switch (e.kind) {
    case "crashed":
      return `${e.name} exited unexpectedly (${e.signal ?? `code ${e.code}`}); restart ${e.attempt} in ${secs(e.delayMs)}`;
    case "restarted":
      return `${e.name} restarted and ready (restart ${e.attempt})`;
    case "restart-failed":
      return `${e.name} restart ${e.attempt} failed: ${e.error.split("\n")[0]}; next try in ${secs(e.delayMs)}`;
  }
}

export class Supervisor {
  private readonly states = new Map<string, TargetState>();
  private stopped = false;
  private readonly initialDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly resetAfterMs: number;

  constructor(private readonly o: SupervisorOptions = {}) {
    this.initialDelayMs = o.initialDelayMs ?? 1_000;
    this.maxDelayMs = o.maxDelayMs ?? 30_000;
    this.resetAfterMs = o.resetAfterMs ?? 60_000;
  }

  add(target: Supervisable): void {
    const st: TargetState = { target, attempt: 0, lastRestartAt: 0, restarting: false };
    this.states.set(target.name, st);
    target.onUnexpectedExit((code, signal) => {
      // A restart in progress reports its own failure; its exit is not a second crash.
      if (this.stopped || st.restarting || st.timer) return;
      const delayMs = this.nextDelay(st);
      this.emit({ kind: "crashed", name: target.name, code, signal, attempt: st.attempt, delayMs, at: new Date() });
      this.schedule(st, delayMs);
    });
  }

  /** Names of the targets that are down (waiting for or in a restart), with the attempt number. */
  down(): Array<{ name: string; attempt: number }> {
    return [...this.states.values()].filter((s) => s.restarting || s.timer).map((s) => ({ name: s.target.name, attempt: s.attempt }));
  }

  /** No restarts from now on (call before stopping the targets). */
  stop(): void {
    this.stopped = true;
    for (const st of this.states.values()) {
      clearTimeout(st.timer);
      st.timer = undefined;
    }
  }

  private nextDelay(st: TargetState): number {
    if (st.lastRestartAt && Date.now() - st.lastRestartAt > this.resetAfterMs) st.attempt = 0;
    st.attempt++;
    return Math.min(this.maxDelayMs, this.initialDelayMs * 2 ** (st.attempt - 1));
  }

  private schedule(st: TargetState, delayMs: number): void {
    st.timer = setTimeout(() => {
      st.timer = undefined;
      if (this.stopped) return;
      st.restarting = true;
      st.lastRestartAt = Date.now();
      st.target.restart().then(
        () => {
          st.restarting = false;
          if (!this.stopped) this.emit({ kind: "restarted", name: st.target.name, attempt: st.attempt, at: new Date() });
        },
        (err: unknown) => {
          st.restarting = false;
          if (this.stopped) return;
          const next = this.nextDelay(st);
          this.emit({ kind: "restart-failed", name: st.target.name, attempt: st.attempt - 1, error: err instanceof Error ? err.message : String(err), delayMs: next, at: new Date() });
          this.schedule(st, next);
        },
      );
    }, delayMs);
  }

  private emit(e: SupervisorEvent): void {
    try {
      this.o.onEvent?.(e);
    } catch {
      // a reporting failure must not stop the supervision
    }
  }
}
