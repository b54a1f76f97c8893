// A request bounded by less than the JetStream request timeout, for the one place where waiting out
// the full 5 s costs a consumer its freshness: resuming a state watch after its server died. During
// the stream's (and the meta group's) leader election a request may go unanswered; asked again a
// moment later it is answered by the new leader, so a short bound and a retry beat a long wait.
/** `p`, or a rejection after `ms`; a value that arrives late is handed to `onLate` (e.g. to stop a watch nobody will read). */
export function within<T>(ms: number, p: Promise<T>, what: string, onLate?: (late: T) => void): Promise<T> {
  let timedOut = false;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      timedOut = true;
      reject(new Error(`${what}: no answer within ${ms} ms`));
    }, ms);
  });
  const settled = p.then((v) => {
    if (timedOut) onLate?.(v);
    return v;
  });
  // A late rejection has nobody waiting for it: swallowed here, not reported as unhandled.
  settled.catch(() => {});
  return Promise.race([settled, late]).finally(() => clearTimeout(timer));
}
