/**
 * "Exit when the parent goes away": a launcher (the demo, `lockstep up`) that starts a service as a
 * child passes it one end of a pipe on an extra file descriptor and names that descriptor in
 * LOCKSTEP_PARENT_WATCH. The parent never writes to it; when the parent ends, however it ends
 * (SIGKILL included), the kernel closes its end and the child reads end-of-file at once.
 *
 * A pipe rather than polling `process.ppid`: no delay, no timer, and it works under a subreaper
 * (where the new parent is not pid 1).
 */
import { Socket } from "node:net";

export const PARENT_WATCH_ENV = "LOCKSTEP_PARENT_WATCH";

/**
 * Calls `onGone` once when the parent's end of the pipe closes. Does nothing (returns a no-op)
 * when LOCKSTEP_PARENT_WATCH is unset, so services under Kubernetes are unaffected.
 * Returns a function that stops watching.
 */
export function watchParent(onGone: () => void, env: NodeJS.ProcessEnv = process.env): () => void {
  const value = env[PARENT_WATCH_ENV];
  if (!value) return () => {};
  const fd = Number(value);
  if (!Number.isInteger(fd) || fd < 3) throw new Error(`${PARENT_WATCH_ENV} must be a file descriptor number ≥ 3, got ${value}`);
  const pipe = new Socket({ fd, readable: true, writable: false });
  let done = false;
  const gone = () => {
    if (done) return;
    done = true;
    pipe.destroy();
    onGone();
  };
  pipe.on("data", () => {}); // the parent writes nothing; reading keeps "end" coming
  pipe.once("end", gone);
  pipe.once("close", gone);
  pipe.once("error", gone);
  // The watch alone must not keep a process alive that has nothing else to do.
  pipe.unref();
  return () => {
    done = true;
    pipe.destroy();
  };
}
