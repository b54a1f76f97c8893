import { spawn } from "node:child_process";
import type { Socket } from "node:net";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { PARENT_WATCH_ENV, watchParent } from "./parent-watch.js";

describe("watchParent", () => {
  it("does nothing without LOCKSTEP_PARENT_WATCH (a service under Kubernetes)", () => {
    let gone = false;
    const stop = watchParent(() => (gone = true), {});
    stop();
    expect(gone).toBe(false);
  });

  it("rejects a value that is not a descriptor number", () => {
    expect(() => watchParent(() => {}, { [PARENT_WATCH_ENV]: "yes" })).toThrow(/file descriptor number/);
    expect(() => watchParent(() => {}, { [PARENT_WATCH_ENV]: "1" })).toThrow(/file descriptor number/);
  });

  it("stops a runMain service in order and exits 0 when the parent's end of the pipe closes", async () => {
    const fixture = fileURLToPath(new URL("../test/fixtures/sigterm-child.ts", import.meta.url));
    const child = spawn(process.execPath, ["--import", "tsx", fixture], {
      cwd: fileURLToPath(new URL("..", import.meta.url)),
      env: { ...process.env, [PARENT_WATCH_ENV]: "3" },
      stdio: ["ignore", "pipe", "pipe", "pipe"],
    });
    let out = "";
    const started = new Promise<void>((resolve) =>
      child.stdout!.on("data", (d: Buffer) => {
        out += d.toString();
        if ((out.match(/test part started/g) ?? []).length === 2) resolve();
      }),
    );
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    await Promise.race([started, exited]);
    // What the kernel does when the parent dies, even by SIGKILL: its end of the pipe closes.
    (child.stdio[3] as Socket).destroy();
    const t0 = Date.now();
    expect(await exited).toBe(0);
    expect(Date.now() - t0).toBeLessThan(5_000);
    expect(out).toContain("parent process gone, stopping");
    expect((out.match(/test part cleaned up/g) ?? []).length).toBe(2);
  });
});
