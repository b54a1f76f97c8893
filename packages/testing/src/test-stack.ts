// The in-process harness every integration suite builds: servers started in order (kube-sim,
// nats-server, gRPC), runnables started on one abort signal, and a teardown that stops the runnables
// first, then everything else in reverse order of start, whatever failed on the way.
import { startNatsServer, type NatsServer, type NatsServerOptions } from "@lockstep/launcher";

export class TestStack {
  private readonly abort = new AbortController();
  private readonly running: Promise<unknown>[] = [];
  private readonly teardown: Array<() => unknown> = [];
  private closed = false;

  /** Aborted by close(): the signal runnables started here run until. */
  get signal(): AbortSignal {
    return this.abort.signal;
  }

  /** Keeps `thing` until close(), then calls its stop(); returns it. */
  add<T extends { stop(): unknown }>(thing: T): T {
    this.teardown.push(() => thing.stop());
    return thing;
  }

  /** Calls `fn` at close(), after the runnables have ended, before what was added earlier. */
  defer(fn: () => unknown): void {
    this.teardown.push(fn);
  }

  /** Starts a runnable (its `start(signal)`) that runs until close() or `signal`, whichever is first. */
  run(runnable: { start(signal: AbortSignal): Promise<unknown> }, signal?: AbortSignal): Promise<unknown> {
    const running = runnable.start(signal ? AbortSignal.any([this.abort.signal, signal]) : this.abort.signal);
    this.running.push(running);
    return running;
  }

  /** A nats-server on a free port, stopped at close(). */
  async nats(o?: NatsServerOptions): Promise<NatsServer> {
    return this.add(await startNatsServer(o));
  }

  /**
   * Stops the runnables, waits for them, then tears down in reverse order; every step runs even if
   * one fails, and a runnable that failed (other than by the abort) fails the close.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.abort.abort();
    const ended = await Promise.allSettled(this.running);
    const errors: unknown[] = ended.flatMap((r) => (r.status === "rejected" && !isAbort(r.reason, this.abort.signal) ? [r.reason] : []));
    for (const fn of this.teardown.reverse()) {
      try {
        await fn();
      } catch (err) {
        errors.push(err);
      }
    }
    if (errors.length) throw new AggregateError(errors, "test stack teardown failed");
  }
}

function isAbort(reason: unknown, signal: AbortSignal): boolean {
  return reason === signal.reason || (reason instanceof Error && reason.name === "AbortError");
}

/**
 * The options of an in-process watcher for tests, besides its API server and bus: Lockstep's
 * namespaces, and informer retries fast enough for a test's patience.
 */
export const TEST_WATCHER_OPTIONS = {
  leaseNamespaces: ["lockstep-leases"],
  bootImagesNamespace: "openshift-machine-config-operator",
  bootImagesName: "coreos-bootimages",
  informer: { minBackoffMs: 50, maxBackoffMs: 500, missingRetryMs: 1000 },
};
