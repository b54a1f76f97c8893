/**
 * Thrown from a reconcile function when retrying cannot help (invalid spec, missing permission
 * the operator must grant, …). The queue reports it and does not retry; the key is processed
 * again only when something adds it anew.
 */
export class TerminalError extends Error {
  override name = "TerminalError";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** True for a {@link TerminalError}, including one wrapped as the `cause` of another error. */
export function isTerminalError(err: unknown): boolean {
  for (let e = err, depth = 0; e instanceof Error && depth < 10; e = e.cause, depth++) {
    if (e instanceof TerminalError) return true;
  }
  return false;
}

/**
 * Raised by {@link HotLoopGuard.assert} when the same write to the same key was attempted too many
 * times in a row: something else keeps undoing it. The message is meant for a Degraded condition.
 * It is a TerminalError: retrying the identical write would only feed the loop.
 */
export class HotLoopError extends TerminalError {
  override name = "HotLoopError";
  constructor(
    readonly key: string,
    readonly fingerprint: string,
    readonly attempts: number,
  ) {
    super(
      `the same write to ${key} was attempted ${attempts} times in a row and keeps being undone; ` +
        `another controller or user is probably changing it back: find the other writer, or change ` +
        `the desired state, and Lockstep will resume`,
    );
  }
}
