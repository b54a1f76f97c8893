// Whether a process still exists, and waiting for such a condition: what tests of process
// lifetimes (orphans, supervisors, clean-up) ask.

/** True while a process with this pid exists (signal 0 checks without signalling). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Polls `check` until it holds or `ms` pass; the last answer. */
export async function eventually(check: () => boolean, ms: number, intervalMs = 50): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  return check();
}
