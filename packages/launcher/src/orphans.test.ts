// Children end when their launcher ends, even by SIGKILL: the services through the parent-watch
// pipe, nats-server and its folder through the guardian.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { eventually, processAlive as alive } from "./process-alive.js";
import { afterAll, describe, expect, it } from "vitest";

const dir = mkdtempSync(join(tmpdir(), "lockstep-orphans-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));


describe("a launcher killed with SIGKILL", () => {
  it("leaves no child process and no nats-server folder behind", async () => {
    const fixture = fileURLToPath(new URL("../test/fixtures/launcher-parent.ts", import.meta.url));
    const parent = spawn(process.execPath, ["--import", "tsx", fixture, join(dir, "svc.log")], {
      cwd: dirname(dirname(fixture)),
      stdio: ["ignore", "pipe", "inherit"],
    });
    const line = await new Promise<string>((resolve, reject) => {
      let out = "";
      parent.stdout!.on("data", (d: Buffer) => {
        out += d.toString();
        if (out.includes("\n")) resolve(out.split("\n")[0]!);
      });
      parent.on("exit", (code) => reject(new Error(`launcher exited early with ${code}`)));
    });
    const { natsPid, natsDir, childPid } = JSON.parse(line) as { natsPid: number; natsDir: string; childPid: number };
    expect(alive(natsPid) && alive(childPid) && existsSync(natsDir)).toBe(true);

    parent.kill("SIGKILL");

    expect(await eventually(() => !alive(childPid), 5_000)).toBe(true);
    expect(await eventually(() => !alive(natsPid), 5_000)).toBe(true);
    expect(await eventually(() => !existsSync(dirname(natsDir)), 5_000)).toBe(true);
  });
});
