import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { abortedPromise, run, RunError, stopOnAbort, type Runnable } from "./run.js";

/** A runnable that records its life and stops when aborted (optionally only after `hold`). */
function part(name: string, events: string[], opts: { hold?: Promise<void>; failWith?: Promise<Error> } = {}): Runnable {
  return {
    name,
    async start(signal) {
      events.push(`start ${name}`);
      if (opts.failWith) {
        throw await opts.failWith;
      }
      await abortedPromise(signal);
      events.push(`abort ${name}`);
      if (opts.hold) await opts.hold;
      events.push(`stopped ${name}`);
    },
  };
}

function deferred<T = void>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

const tick = () => new Promise<void>((r) => setImmediate(r));

describe("run", () => {
  it("starts all runnables and stops them in reverse order when the signal aborts", async () => {
    const events: string[] = [];
    const ctl = new AbortController();
    const hold = deferred();
    const done = run([part("a", events), part("b", events), part("c", events, { hold: hold.promise })], { signal: ctl.signal });
    await tick();
    expect(events).toEqual(["start a", "start b", "start c"]);
    ctl.abort();
    await tick();
    // c must finish stopping before b is asked to stop.
    expect(events.slice(3)).toEqual(["abort c"]);
    hold.resolve();
    await done;
    expect(events.slice(3)).toEqual(["abort c", "stopped c", "abort b", "stopped b", "abort a", "stopped a"]);
  });

  it("stops the others and rejects when one runnable fails", async () => {
    const events: string[] = [];
    const fail = deferred<Error>();
    const done = run([part("a", events), part("b", events, { failWith: fail.promise }), part("c", events)]);
    await tick();
    fail.resolve(new Error("nats connection lost"));
    const err = await done.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RunError);
    expect((err as RunError).message).toBe("b failed: nats connection lost");
    expect((err as RunError).failures.map((f) => f.name)).toEqual(["b"]);
    expect(events.filter((e) => e.startsWith("stopped"))).toEqual(["stopped c", "stopped a"]);
  });

  it("treats a runnable that returns on its own as a failure", async () => {
    const events: string[] = [];
    const quitter: Runnable = { name: "quitter", start: async () => {} };
    const err = await run([part("a", events), quitter]).catch((e: unknown) => e);
    expect((err as RunError).message).toMatch(/^quitter failed: quitter stopped without being asked to/);
    expect(events).toContain("stopped a");
  });

  it("gives up on a runnable that does not stop within the timeout", async () => {
    const events: string[] = [];
    const stuck: Runnable = { name: "stuck", start: () => new Promise(() => {}) };
    const ctl = new AbortController();
    const done = run([part("a", events), stuck], { signal: ctl.signal, stopTimeoutMs: 50 });
    ctl.abort();
    const err = await done.catch((e: unknown) => e);
    expect((err as RunError).failures.map((f) => f.name)).toEqual(["stuck"]);
    // The ones before it are still told to stop.
    expect(events).toContain("abort a");
  });

  it("stopOnAbort calls stop after the abort", async () => {
    const events: string[] = [];
    const ctl = new AbortController();
    const done = run([stopOnAbort("server", () => void events.push("server stop"))], { signal: ctl.signal });
    await tick();
    expect(events).toEqual([]);
    ctl.abort();
    await done;
    expect(events).toEqual(["server stop"]);
  });

  it("stops a real process cleanly on SIGTERM and exits 0", async () => {
    const fixture = fileURLToPath(new URL("../test/fixtures/sigterm-child.ts", import.meta.url));
    const child = spawn(process.execPath, ["--import", "tsx", fixture], {
      cwd: fileURLToPath(new URL("..", import.meta.url)),
      stdio: ["ignore", "pipe", "pipe"],
    });
    const lines: Array<Record<string, unknown>> = [];
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    let buffer = "";
    let started = 0;
    const bothStarted = deferred();
    child.stdout.on("data", (d: Buffer) => {
      buffer += d.toString();
      let nl: number;
      while ((nl = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        const parsed = JSON.parse(line) as Record<string, unknown>;
        lines.push(parsed);
        if (parsed.msg === "test part started" && ++started === 2) bothStarted.resolve();
      }
    });
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    await Promise.race([bothStarted.promise, exited]);
    child.kill("SIGTERM");
    const code = await exited;
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const cleanups = lines.filter((l) => l.msg === "test part cleaned up").map((l) => l.part);
    expect(cleanups).toEqual(["second", "first"]);
    expect(lines.find((l) => l.msg === "signal received, stopping")).toMatchObject({
      signal: "SIGTERM",
      service: "sigterm-child",
    });
    expect(lines.at(-1)).toMatchObject({ msg: "stopped" });
  });
});
