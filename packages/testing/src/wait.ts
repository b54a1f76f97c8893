/**
 * Polls `check` until it returns a truthy value or the timeout passes; returns that value. The
 * timeout's error names `what`, the check's last error, and what `explain` says of the state then.
 */
export async function waitFor<T>(
  check: () => T | Promise<T>,
  opts: { timeoutMs?: number; intervalMs?: number; what?: string; explain?: () => Promise<string> | string } = {},
): Promise<NonNullable<T>> {
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
      const more = opts.explain ? `\n${await Promise.resolve(opts.explain()).catch((e) => String(e))}` : "";
      throw new Error(`timed out waiting for ${opts.what ?? "condition"}${why}${more}`);
    }
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 25));
  }
}
