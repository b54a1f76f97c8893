// The built demo (`--ci`) as a user runs it, with faults: a service and the nats-server SIGKILLed
// mid-story are restarted and reported, and the demo still exits 0; the demo itself SIGKILLed
// leaves no process and no temp folder behind.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { STEPS } from "@lockstep/demo";
import { eventually, processAlive as alive } from "@lockstep/launcher";
import { afterAll, describe, expect, it } from "vitest";

const demoMain = fileURLToPath(new URL("../../packages/demo/dist/main.js", import.meta.url));
const runs = mkdtempSync(join(tmpdir(), "lockstep-e2e-demo-"));
afterAll(() => rmSync(runs, { recursive: true, force: true }));


/** Runs the demo; `onLine` sees every output line. Resolves with the exit code and all output. */
function runDemo(name: string, onLine: (line: string, demo: ChildProcess) => void): Promise<{ code: number | null; signal: string | null; out: string }> {
  const demo = spawn(process.execPath, [demoMain, "--ci", "--time-scale", "120", "--run-dir", join(runs, name)], { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let buf = "";
  const feed = (d: Buffer) => {
    out += d.toString();
    buf += d.toString();
    for (let i; (i = buf.indexOf("\n")) >= 0; buf = buf.slice(i + 1)) onLine(buf.slice(0, i), demo);
  };
  demo.stdout!.on("data", feed);
  demo.stderr!.on("data", feed);
  return new Promise((resolve) => demo.on("exit", (code, signal) => resolve({ code, signal, out })));
}

/** What the demo says at start: nats-server's pid and folder, the services' pids. */
function started(out: string) {
  const nats = /nats-server nats:\S+ \(pid (\d+), storage (\S+)\)/.exec(out);
  const pids = /service pids: (.*)/.exec(out)?.[1]?.split(", ").map((x) => x.split(" ")) ?? [];
  return { natsPid: Number(nats?.[1]), natsDir: dirname(nats?.[2] ?? "/nonexistent/js"), services: new Map(pids.map(([n, p]) => [n!, Number(p)])) };
}

describe("the demo's exit", () => {
  it("restarts a SIGKILLed service and nats-server, reports both, exits 0 and leaves no temp folder", async () => {
    let out = "";
    const killed: string[] = [];
    const r = await runDemo("faults", (line) => {
      out += `${line}\n`;
      const s = started(out);
      if (line.startsWith("step 5/") && !killed.includes("lease-coordinator")) {
        process.kill(s.services.get("lease-coordinator")!, "SIGKILL");
        killed.push("lease-coordinator");
      }
      if (line.startsWith("step 8/") && !killed.includes("nats-server")) {
        process.kill(s.natsPid, "SIGKILL");
        killed.push("nats-server");
      }
    });
    expect(killed).toEqual(["lease-coordinator", "nats-server"]);
    expect(r.out).toContain("event lease-coordinator exited unexpectedly (SIGKILL); restart 1 in 1.0 s");
    expect(r.out).toContain("event lease-coordinator restarted and ready (restart 1)");
    expect(r.out).toContain("event nats-server exited unexpectedly (SIGKILL); restart 1 in 1.0 s");
    expect(r.out).toContain("event nats-server restarted and ready (restart 1)");
    expect(r.out).toContain(`${STEPS.length}/${STEPS.length} steps happened`);
    expect(r.code).toBe(0);
    const s = started(r.out);
    expect(existsSync(s.natsDir)).toBe(false);
    for (const [name, pid] of s.services) expect(alive(pid), name).toBe(false);
  });

  it("killed with SIGKILL, leaves no service, no nats-server and no temp folder", async () => {
    let out = "";
    const r = await runDemo("sigkill", (line, demo) => {
      out += `${line}\n`;
      if (line.startsWith("step 2/")) demo.kill("SIGKILL");
    });
    expect(r.signal).toBe("SIGKILL");
    const s = started(out);
    expect(s.services.size).toBe(5);
    const pids = [s.natsPid, ...s.services.values()];
    expect(await eventually(() => pids.every((p) => !alive(p)), 15_000), `still alive: ${pids.filter(alive).join(", ")}`).toBe(true);
    expect(await eventually(() => !existsSync(s.natsDir), 10_000)).toBe(true);
  });

  it("stopped with SIGHUP, removes its temp folder and exits 129", async () => {
    let out = "";
    const r = await runDemo("sighup", (line, demo) => {
      out += `${line}\n`;
      if (line.startsWith("step 2/")) demo.kill("SIGHUP");
    });
    expect(r.code).toBe(129);
    const s = started(out);
    expect(existsSync(s.natsDir)).toBe(false);
    for (const [name, pid] of s.services) expect(alive(pid), name).toBe(false);
  });
});
