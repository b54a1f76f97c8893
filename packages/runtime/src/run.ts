/**
 * Process lifecycle: start every long-running part of a service, stop them in reverse order on
 * SIGTERM/SIGINT or when any of them fails.
 */
import type { Logger } from "pino";
import { silentLogger } from "./logger.js";
import { watchParent } from "./parent-watch.js";

/**
 * A long-running part of a service. `start` runs until `signal` aborts, then cleans up and
 * resolves. Resolving before the abort, or rejecting, counts as a failure of the service.
 */
export interface Runnable {
  name: string;
  start(signal: AbortSignal): Promise<void>;
}

/** Options for {@link run}. */
export interface RunOptions {
  /** Aborting it stops everything (see {@link installSignalHandlers}). */
  signal?: AbortSignal;
  logger?: Logger;
  /** Total time the orderly stop may take before the rest is abandoned. Default 25 s. */
  stopTimeoutMs?: number;
}

/** Thrown by {@link run} when a runnable failed, stopped on its own, or did not stop in time. */
export class RunError extends Error {
  override name = "RunError";
  constructor(
    message: string,
    readonly failures: Array<{ name: string; error: unknown }>,
  ) {
    super(message, { cause: failures[0]?.error });
  }
}

/** A Runnable that waits for the abort and then calls `stop` (e.g. a server handle's stop). */
export function stopOnAbort(name: string, stop: () => Promise<void> | void): Runnable {
  return {
    name,
    async start(signal) {
      await abortedPromise(signal);
      await stop();
    },
  };
}

/** Resolves when `signal` aborts (immediately if it already has). */
export function abortedPromise(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
}

/**
 * Starts all runnables at once (in list order) and waits. When `signal` aborts or any runnable
 * fails, each runnable's own signal is aborted in reverse order, waiting for it to finish before
 * stopping the previous one, within `stopTimeoutMs` overall.
 * Resolves after a requested stop that went cleanly; rejects with a {@link RunError} otherwise.
 */
export async function run(runnables: readonly Runnable[], options: RunOptions = {}): Promise<void> {
  const logger = options.logger ?? silentLogger();
  const stopTimeoutMs = options.stopTimeoutMs ?? 25_000;
  const failures: Array<{ name: string; error: unknown }> = [];
  let wake!: () => void;
  const stopRequested = new Promise<void>((resolve) => (wake = resolve));

  const entries = runnables.map((r) => {
    const controller = new AbortController();
    const entry = { runnable: r, controller, settled: false, done: Promise.resolve() };
    logger.info({ runnable: r.name }, "runnable starting");
    entry.done = Promise.resolve()
      .then(() => r.start(controller.signal))
      .then(
        () => {
          if (!controller.signal.aborted) {
            failures.push({ name: r.name, error: new Error(`${r.name} stopped without being asked to`) });
            logger.error({ runnable: r.name }, "runnable stopped unexpectedly");
            wake();
          }
        },
        (error: unknown) => {
          failures.push({ name: r.name, error });
          logger.error({ runnable: r.name, err: error }, "runnable failed");
          wake();
        },
      )
      .finally(() => {
        entry.settled = true;
      });
    return entry;
  });

  const onAbort = () => wake();
  options.signal?.addEventListener("abort", onAbort, { once: true });
  if (options.signal?.aborted) wake();
  await stopRequested;
  options.signal?.removeEventListener("abort", onAbort);
  logger.info({ reason: failures.length > 0 ? "failure" : "signal" }, "stopping");

  const deadline = Date.now() + stopTimeoutMs;
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i]!;
    entry.controller.abort(new Error("stopping"));
    if (entry.settled) continue;
    const remaining = deadline - Date.now();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const finished = await Promise.race([
      entry.done.then(() => true),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), Math.max(0, remaining)))),
    ]);
    clearTimeout(timer);
    if (finished) {
      logger.info({ runnable: entry.runnable.name }, "runnable stopped");
      continue;
    }
    // Out of time: tell the rest to stop without waiting for them; the process is about to exit.
    const abandoned = entries.slice(0, i).filter((e) => !e.settled).map((e) => e.runnable.name);
    for (const e of entries.slice(0, i)) e.controller.abort(new Error("stop timeout"));
    logger.error({ runnable: entry.runnable.name, abandoned, stopTimeoutMs }, "stop timed out");
    failures.push({
      name: entry.runnable.name,
      error: new Error(`${entry.runnable.name} did not stop within ${stopTimeoutMs}ms`),
    });
    break;
  }

  if (failures.length > 0) {
    throw new RunError(`${failures.map((f) => f.name).join(", ")} failed: ${describe(failures[0]!.error)}`, failures);
  }
  logger.info("stopped");
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Aborts `controller` on the first SIGTERM or SIGINT; a second signal exits at once with 130
 * for an operator who does not want to wait. Returns a function that removes the handlers.
 */
export function installSignalHandlers(controller: AbortController, logger?: Logger): () => void {
  let received = 0;
  const handler = (sig: NodeJS.Signals) => {
    received++;
    if (received === 1) {
      logger?.info({ signal: sig }, "signal received, stopping");
      controller.abort(new Error(`received ${sig}`));
    } else {
      logger?.warn({ signal: sig }, "second signal received, exiting now");
      process.exit(130);
    }
  };
  process.on("SIGTERM", handler);
  process.on("SIGINT", handler);
  return () => {
    process.off("SIGTERM", handler);
    process.off("SIGINT", handler);
  };
}

/**
 * The whole of a service's `main`: installs the signal handlers, runs, and exits with 0 after an
 * orderly stop or 1 after a failure.
 */
export async function runMain(
  runnables: readonly Runnable[],
  options: { logger: Logger; stopTimeoutMs?: number },
): Promise<never> {
  const controller = new AbortController();
  installSignalHandlers(controller, options.logger);
  // Started by a launcher: stop in order when it goes away, so no service outlives it.
  const unwatch = watchParent(() => {
    options.logger.warn("parent process gone, stopping");
    controller.abort(new Error("parent process gone"));
  });
  // Signal handlers alone do not keep Node's event loop alive; a process with nothing else
  // pending would otherwise exit (code 13) while its runnables wait for the abort.
  const keepAlive = setInterval(() => {}, 1 << 30);
  let code = 0;
  try {
    await run(runnables, { signal: controller.signal, logger: options.logger, stopTimeoutMs: options.stopTimeoutMs });
  } catch (err) {
    options.logger.fatal({ err }, "service failed");
    code = 1;
  }
  clearInterval(keepAlive);
  unwatch();
  process.exit(code);
}
