/**
 * Readiness checks behind /readyz. A check returns true when ready; false or a thrown error means
 * not ready (the error message is shown). A check that takes longer than the timeout fails.
 */

/** A readiness check; a string result is a not-ready reason. */
export type ReadinessCheck = () => boolean | string | Promise<boolean | string>;

/** One check's outcome. */
export interface CheckOutcome {
  name: string;
  ok: boolean;
  reason?: string;
}

/** A readiness check driven by hand, e.g. "initial state loaded". */
export interface ReadinessFlag {
  set(ready: boolean, reason?: string): void;
  readonly ready: boolean;
}

/** The set of readiness checks of one process. */
export class Readiness {
  private readonly checks = new Map<string, ReadinessCheck>();

  constructor(private readonly timeoutMs = 2000) {}

  /** Registers (or replaces) a named check. */
  add(name: string, check: ReadinessCheck): void {
    this.checks.set(name, check);
  }

  /** Removes a check. */
  remove(name: string): void {
    this.checks.delete(name);
  }

  /** Registers a check whose state is set by hand; starts not ready unless `initial` is true. */
  flag(name: string, initial = false, initialReason = "not yet ready"): ReadinessFlag {
    let ready = initial;
    let reason = initialReason;
    this.add(name, () => (ready ? true : reason));
    return {
      set(value: boolean, why = "not ready") {
        ready = value;
        reason = why;
      },
      get ready() {
        return ready;
      },
    };
  }

  /** Runs every check concurrently. Ready when all pass (an empty set is ready). */
  async evaluate(): Promise<{ ready: boolean; checks: CheckOutcome[] }> {
    const checks = await Promise.all(
      [...this.checks].map(async ([name, check]): Promise<CheckOutcome> => {
        let timer: ReturnType<typeof setTimeout> | undefined;
        try {
          const timeout = new Promise<string>((resolve) => {
            timer = setTimeout(() => resolve(`timed out after ${this.timeoutMs}ms`), this.timeoutMs);
          });
          const result = await Promise.race([Promise.resolve().then(check), timeout]);
          if (result === true) return { name, ok: true };
          return { name, ok: false, reason: typeof result === "string" ? result : "not ready" };
        } catch (err) {
          return { name, ok: false, reason: err instanceof Error ? err.message : String(err) };
        } finally {
          clearTimeout(timer);
        }
      }),
    );
    return { ready: checks.every((c) => c.ok), checks };
  }
}
