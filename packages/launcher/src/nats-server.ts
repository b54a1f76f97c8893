// Starts a real nats-server (JetStream on) on a free port with its own storage directory, so each
// test suite is isolated and can kill and restart its server for fault tests.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { guardian } from "./guardian.js";
import { freePort } from "./ports.js";

export interface NatsServerOptions {
  /** Binary; defaults to $NATS_SERVER_BIN, then `nats-server` on PATH, then /usr/sbin/nats-server. */
  bin?: string;
  /** Extra config-file text (e.g. an `authorization { … }` block). */
  config?: string;
  /** Milliseconds to wait for "Server is ready". */
  readyTimeoutMs?: number;
}

export interface NatsServer {
  readonly url: string;
  readonly port: number;
  readonly storeDir: string;
  /** SIGKILL the server (JetStream data stays on disk). Resolves at once if it already exited. */
  kill(): Promise<void>;
  /** Start again on the same port with the same storage. */
  restart(): Promise<void>;
  /** Stop and delete the storage directory. */
  stop(): Promise<void>;
  readonly log: () => string;
  /** Process id of the running server (benchmarks read its CPU). */
  readonly pid: () => number | undefined;
  /** Called when the server exits without being asked to (a crash, a kill from outside). */
  onUnexpectedExit(l: (code: number | null, signal: NodeJS.Signals | null) => void): void;
  readonly name: string;
}

function resolveBin(explicit?: string): string {
  return explicit ?? process.env.NATS_SERVER_BIN ?? "nats-server";
}

export async function startNatsServer(opts: NatsServerOptions = {}): Promise<NatsServer> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "lockstep-nats-"));
  // If this process dies before stop(), the guardian deletes the folder and kills the server.
  const guard = guardian();
  guard.watchDir(dir);
  const storeDir = join(dir, "js");
  const confPath = join(dir, "nats.conf");
  // Explicit JetStream limits: the defaults claim most of RAM and disk (stack.md pitfall 16).
  writeFileSync(
    confPath,
    [
      `listen: "127.0.0.1:${port}"`,
      `jetstream { store_dir: "${storeDir}", max_memory_store: 256MB, max_file_store: 2GB }`,
      opts.config ?? "",
    ].join("\n"),
  );
  let bin = resolveBin(opts.bin);
  let proc: ChildProcess | undefined;
  // Settles on the child's "exit", whatever ended it. A child killed by a signal has
  // exitCode null, so exitCode alone cannot tell that it is gone (kill() used to wait forever).
  let procExited: Promise<void> = Promise.resolve();
  let expectedExit = false;
  const exitListeners: Array<(code: number | null, signal: NodeJS.Signals | null) => void> = [];
  let output = "";

  const launch = () =>
    new Promise<void>((resolve, reject) => {
      const tryBins = opts.bin || process.env.NATS_SERVER_BIN ? [bin] : [bin, "/usr/sbin/nats-server"];
      const attempt = (i: number) => {
        const child = spawn(tryBins[i]!, ["-c", confPath], { stdio: ["ignore", "pipe", "pipe"] });
        const exited = new Promise<void>((r) => child.once("exit", () => r()));
        if (child.pid !== undefined) guard.watchProcess(child.pid);
        child.once("exit", (code, signal) => {
          if (child.pid !== undefined) guard.forgetProcess(child.pid);
          if (proc === child && !expectedExit) for (const l of exitListeners) l(code, signal);
        });
        let settled = false;
        const timer = setTimeout(() => {
          if (settled) return;
          settled = true;
          child.kill("SIGKILL");
          reject(new Error(`nats-server did not become ready within ${opts.readyTimeoutMs ?? 10_000} ms:\n${output}`));
        }, opts.readyTimeoutMs ?? 10_000);
        const onData = (b: Buffer) => {
          output += b.toString();
          if (!settled && output.includes("Server is ready")) {
            settled = true;
            clearTimeout(timer);
            proc = child;
            procExited = exited;
            expectedExit = false;
            bin = tryBins[i]!;
            resolve();
          }
        };
        child.stdout!.on("data", onData);
        child.stderr!.on("data", onData);
        child.on("error", (err: NodeJS.ErrnoException) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          if (err.code === "ENOENT" && i + 1 < tryBins.length) return attempt(i + 1);
          reject(new Error(`cannot start nats-server (${tryBins[i]}): ${err.message}; install Debian's nats-server or set NATS_SERVER_BIN`));
        });
        child.on("exit", (code) => {
          if (!settled) {
            settled = true;
            clearTimeout(timer);
            reject(new Error(`nats-server exited with ${code} before it was ready:\n${output}`));
          }
        });
      };
      attempt(0);
    });

  const kill = async () => {
    const p = proc;
    if (!p) return;
    expectedExit = true;
    if (p.exitCode === null && p.signalCode === null) p.kill("SIGKILL");
    await procExited;
    proc = undefined;
  };

  try {
    await launch();
  } catch (err) {
    // A server that never started leaves nothing behind either.
    rmSync(dir, { recursive: true, force: true });
    guard.forgetDir(dir);
    throw err;
  }
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    storeDir,
    kill,
    restart: async () => {
      await kill();
      output = "";
      await launch();
    },
    stop: async () => {
      await kill();
      rmSync(dir, { recursive: true, force: true });
      guard.forgetDir(dir);
    },
    log: () => output,
    pid: () => proc?.pid,
    onUnexpectedExit: (l) => void exitListeners.push(l),
    name: "nats-server",
  };
}
