// A child process with its output in a log file, readiness by polling its /readyz, and kill/restart
// for fault tests. The child gets one end of a pipe on fd 3 (named in LOCKSTEP_PARENT_WATCH) that
// this process never writes to: when this process ends, even by SIGKILL, the child reads
// end-of-file and stops (@lockstep/runtime's runMain does this), so no service outlives its launcher.
import { spawn, type ChildProcess } from "node:child_process";
import { createWriteStream, type WriteStream } from "node:fs";
import type { Socket } from "node:net";

const TAIL_LINES = 15;
/** How long stop() waits, after the exit, for the last output to reach the log file. */
const CLOSE_WAIT_MS = 2_000;
/** The child's descriptor for the parent-watch pipe (stdin stays free). */
export const PARENT_WATCH_FD = 3;

export interface ManagedProcessOptions {
  name: string;
  command: string;
  args: string[];
  env: Record<string, string>;
  logFile: string;
  /** URL polled until it answers 200. */
  readyUrl?: string;
}

export class ManagedProcess {
  private child: ChildProcess | undefined;
  private log: WriteStream | undefined;
  private closed: Promise<void> = Promise.resolve();
  private exitListeners: Array<(code: number | null, signal: NodeJS.Signals | null) => void> = [];
  private expectedExit = false;
  /** Last lines of output, so a failed start says why without opening the log file. */
  private tail: string[] = [];

  constructor(readonly o: ManagedProcessOptions) {}

  get name(): string {
    return this.o.name;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Called when the process exits without being asked to (a crash). */
  onUnexpectedExit(l: (code: number | null, signal: NodeJS.Signals | null) => void): void {
    this.exitListeners.push(l);
  }

  start(): void {
    this.log = createWriteStream(this.o.logFile, { flags: "a" });
    this.expectedExit = false;
    const child = spawn(this.o.command, this.o.args, {
      env: { ...process.env, LOCKSTEP_PARENT_WATCH: String(PARENT_WATCH_FD), ...this.o.env },
      stdio: ["ignore", "pipe", "pipe", "pipe"],
    });
    // Our end of the parent-watch pipe: held open, never written, and not what keeps us alive.
    const watchEnd = child.stdio[PARENT_WATCH_FD] as Socket;
    watchEnd.on("error", () => {});
    watchEnd.unref();
    this.tail = [];
    child.stdout!.pipe(this.log, { end: false });
    child.stderr!.pipe(this.log, { end: false });
    const keep = (chunk: Buffer) => {
      this.tail.push(...chunk.toString("utf8").split("\n").filter((l) => l.trim() !== ""));
      if (this.tail.length > TAIL_LINES) this.tail.splice(0, this.tail.length - TAIL_LINES);
    };
    child.stdout!.on("data", keep);
    child.stderr!.on("data", keep);
    // "close" comes after the child's last output has been read; ending the log then and waiting
    // for its flush means a caller that awaited stop() finds every line in the file.
    const log = this.log;
    this.closed = new Promise<void>((r) => child.once("close", () => log.end(() => r())));
    child.on("exit", (code, signal) => {
      if (!this.expectedExit) for (const l of this.exitListeners) l(code, signal);
    });
    this.child = child;
  }

  async waitReady(timeoutMs = 30_000): Promise<void> {
    if (!this.o.readyUrl) return;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (!this.running) {
        // "close" comes after the last output, so the tail is complete.
        await Promise.race([this.closed, new Promise((r) => setTimeout(r, 1_000))]);
        const last = this.tail.length ? `; last output:\n${this.tail.join("\n")}` : "";
        throw new Error(`${this.o.name} exited before it was ready (see ${this.o.logFile})${last}`);
      }
      try {
        const res = await fetch(this.o.readyUrl);
        if (res.status === 200) return;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) throw new Error(`${this.o.name} not ready after ${timeoutMs} ms (see ${this.o.logFile})`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** Sends a signal and waits for the exit; SIGKILL after `graceMs`. */
  async stop(signal: NodeJS.Signals = "SIGTERM", graceMs = 10_000): Promise<number | null> {
    const child = this.child;
    if (!child || !this.running) return child?.exitCode ?? null;
    this.expectedExit = true;
    const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
    child.kill(signal);
    const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
    const code = await exited;
    clearTimeout(timer);
    // A grandchild that inherited the pipes could hold them open; do not wait on it for long.
    await Promise.race([this.closed, new Promise((r) => setTimeout(r, CLOSE_WAIT_MS).unref())]);
    return code;
  }

  async restart(): Promise<void> {
    await this.stop("SIGKILL");
    this.start();
    await this.waitReady();
  }
}
