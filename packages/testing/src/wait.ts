/** Polls `check` until it returns a truthy value or the timeout passes; returns that value. */
export async function waitFor<T>(check: () => T | Promise<T>, opts: { timeoutMs?: number; intervalMs?: number; what?: string } = {}): Promise<NonNullable<T>> {
  const deadline = Date.now() + (opts.timeoutMs ?? 15_000);
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v) return v as NonNullable<T>;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) {
      const why = last instanceof Error ? `: ${last.message}` : "";
      throw new Error(`timed out waiting for ${opts.what ?? "condition"}${why}`);
    }
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 25));
  }
}
