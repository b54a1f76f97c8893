import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./ports.js";
import { afterAll, describe, expect, it } from "vitest";
import { ManagedProcess } from "./process.js";

const dir = mkdtempSync(join(tmpdir(), "lockstep-launcher-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// A stand-in service: ready after a short delay, logs, exits 0 on SIGTERM.
const script = (port: number) => `
  const http = require("node:http");
  let ready = false; setTimeout(() => (ready = true), 200);
  const s = http.createServer((q, r) => { r.statusCode = ready ? 200 : 503; r.end(); }).listen(${port});
  console.log("service started");
  process.on("SIGTERM", () => { console.log("stopping"); s.close(() => process.exit(0)); });
`;

describe("ManagedProcess", () => {
  it("waits for readiness, logs to its file and stops cleanly on SIGTERM", async () => {
    const port = await freePort();
    const p = new ManagedProcess({ name: "svc", command: process.execPath, args: ["-e", script(port)], env: {}, logFile: join(dir, "svc.log"), readyUrl: `http://127.0.0.1:${port}/readyz` });
    p.start();
    await p.waitReady(5_000);
    expect(await p.stop("SIGTERM")).toBe(0);
    expect(readFileSync(join(dir, "svc.log"), "utf8")).toMatch(/service started[\s\S]*stopping/);
  });

  it("has every line of output in the log file once stop() returns, even a burst written just before the exit", async () => {
    // seq writes 1.9 MB with blocking writes and the shell exits at once: the exit is reported while
    // the last of it is still in the pipe or on its way to the file.
    const logFile = join(dir, "burst.log");
    const script = "trap 'seq 1 300000; exit 0' TERM; while :; do sleep 0.05; done";
    const p = new ManagedProcess({ name: "burst", command: "/bin/sh", args: ["-c", script], env: {}, logFile });
    p.start();
    await new Promise((r) => setTimeout(r, 100));
    expect(await p.stop("SIGTERM")).toBe(0);
    const lines = readFileSync(logFile, "utf8").trimEnd().split("\n");
    expect(lines).toHaveLength(300_000);
    expect(lines.at(-1)).toBe("300000");
  });

  it("reports a crash and can be restarted", async () => {
    const port = await freePort();
    const p = new ManagedProcess({ name: "svc2", command: process.execPath, args: ["-e", script(port)], env: {}, logFile: join(dir, "svc2.log"), readyUrl: `http://127.0.0.1:${port}/readyz` });
    const crashes: Array<string | null> = [];
    p.onUnexpectedExit((_c, s) => crashes.push(s));
    p.start();
    await p.waitReady(5_000);
    process.kill(p.pid!, "SIGKILL");
    await new Promise((r) => setTimeout(r, 200));
    expect(crashes).toEqual(["SIGKILL"]);
    await p.restart();
    expect(p.running).toBe(true);
    await p.stop();
  });

  it("fails waitReady with the log path when the process dies", async () => {
    const p = new ManagedProcess({ name: "bad", command: process.execPath, args: ["-e", "console.error('listen EADDRINUSE: address already in use'); process.exit(3)"], env: {}, logFile: join(dir, "bad.log"), readyUrl: "http://127.0.0.1:1/readyz" });
    p.start();
    await expect(p.waitReady(5_000)).rejects.toThrow(/bad exited before it was ready \(see .*bad\.log\); last output:\nlisten EADDRINUSE/);
  });
});
