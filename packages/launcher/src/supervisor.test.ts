// The supervisor against real child processes: a crashed service comes back, with growing delays
// while it keeps crashing, and every crash and restart is reported.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ManagedProcess } from "./process.js";
import { describeSupervisorEvent, Supervisor, type SupervisorEvent } from "./supervisor.js";

const dir = mkdtempSync(join(tmpdir(), "lockstep-supervisor-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const until = async (check: () => boolean, ms = 10_000) => {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe("Supervisor", () => {
  it("restarts a service that crashed once and reports both", async () => {
    const marker = join(dir, "crashed-once");
    // Crashes on its first run (leaving a marker), stays up afterwards.
    const script = `const fs = require("node:fs"); const m = ${JSON.stringify(marker)};
      if (!fs.existsSync(m)) { fs.writeFileSync(m, ""); setTimeout(() => process.exit(3), 100); }
      setInterval(() => {}, 1 << 30);`;
    const p = new ManagedProcess({ name: "flaky", command: process.execPath, args: ["-e", script], env: {}, logFile: join(dir, "flaky.log") });
    const events: SupervisorEvent[] = [];
    const sup = new Supervisor({ initialDelayMs: 100, onEvent: (e) => events.push(e) });
    sup.add(p);
    p.start();
    await until(() => events.some((e) => e.kind === "restarted"));
    expect(existsSync(marker)).toBe(true);
    expect(events.map((e) => e.kind)).toEqual(["crashed", "restarted"]);
    expect(events[0]).toMatchObject({ name: "flaky", code: 3, attempt: 1, delayMs: 100 });
    expect(describeSupervisorEvent(events[0]!)).toBe("flaky exited unexpectedly (code 3); restart 1 in 0.1 s");
    expect(p.running).toBe(true);
    sup.stop();
    await p.stop();
  });

  it("doubles the delay while a service keeps crashing, and stops restarting after stop()", async () => {
    const p = new ManagedProcess({ name: "crashy", command: process.execPath, args: ["-e", "setTimeout(() => process.kill(process.pid, 'SIGKILL'), 50)"], env: {}, logFile: join(dir, "crashy.log") });
    const events: SupervisorEvent[] = [];
    const sup = new Supervisor({ initialDelayMs: 50, maxDelayMs: 150, onEvent: (e) => events.push(e) });
    sup.add(p);
    p.start();
    await until(() => events.filter((e) => e.kind === "crashed").length >= 4);
    sup.stop();
    const crashes = events.filter((e) => e.kind === "crashed");
    expect(crashes.map((e) => (e.kind === "crashed" ? [e.attempt, e.delayMs, e.signal] : []))).toEqual([
      [1, 50, "SIGKILL"],
      [2, 100, "SIGKILL"],
      [3, 150, "SIGKILL"],
      [4, 150, "SIGKILL"],
    ]);
    const seen = events.length;
    await new Promise((r) => setTimeout(r, 400));
    expect(events.length).toBeLessThanOrEqual(seen + 1); // at most the restart already under way
    await p.stop("SIGKILL");
  });
});
