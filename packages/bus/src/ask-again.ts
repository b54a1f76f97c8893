// Resuming a state watch first asks the stream how far it goes, while the stream's leader may still
// be being elected: a request sent then goes unanswered until its own timeout (5 s). Asking again
// every `everyMs`, with the earlier asks still pending, reaches the new leader within `everyMs` of
// its election; and a slow but real answer (a loaded server) still counts, where a bound that cut it
// off would never resume against a server that answers slower than the bound.

/**
 * The first answer of `ask()`, asked now and again every `everyMs` (at most `maxAsks` times) while
 * none has answered. Rejects only once every ask made has failed, with the last failure.
 */
export function askAgainUntilAnswered<T>(ask: () => Promise<T>, everyMs: number, maxAsks: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let asked = 0;
    let failed = 0;
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const settle = (f: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      f();
    };
    const askOnce = () => {
      asked++;
      ask().then(
        (v) => settle(() => resolve(v)),
        (err: unknown) => {
          failed++;
          // Every ask made has failed and no more will be made: give up. Otherwise a pending ask or
          // the next one may still answer.
          if (failed === asked && asked >= maxAsks) settle(() => reject(err));
        },
      );
      if (asked < maxAsks) timer = setTimeout(askOnce, everyMs);
    };
    askOnce();
  });
}
