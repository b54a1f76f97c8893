// The built demo in a real 80x24 terminal (a tmux pane): every screen captured while it runs has the
// title on the first line and the current step (or the end) on it, never more than 24 lines, and
// the final screen shows every pool complete with no step running; Ctrl-C then leaves the normal
// screen with the connect commands printed at start. Skipped where tmux is not installed.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { STEPS } from "./story.js";

const demoMain = fileURLToPath(new URL("../dist/main.js", import.meta.url));
const hasTmux = spawnSync("sh", ["-c", "command -v tmux"], { stdio: "ignore" }).status === 0;
const socket = `lockstep-demo-test-${process.pid}`;
const tmux = (...args: string[]) => spawnSync("tmux", ["-L", socket, ...args], { encoding: "utf8" });
const runDir = mkdtempSync(join(tmpdir(), "lockstep-demo-tmux-"));

afterAll(() => {
  if (hasTmux) tmux("kill-server");
  rmSync(runDir, { recursive: true, force: true });
});

const capture = (): string[] => {
  const lines = tmux("capture-pane", "-p", "-t", "demo").stdout.split("\n");
  while (lines.length && lines.at(-1)!.trim() === "") lines.pop();
  return lines;
};

describe.skipIf(!hasTmux)("the demo in an 80x24 terminal", () => {
  it("keeps the title and the current step on screen and ends on every pool complete", { timeout: 240_000 }, async () => {
    expect(existsSync(demoMain)).toBe(true);
    // The exit code is printed after the demo, then the pane lingers so it can be read.
    const cmd = `${JSON.stringify(process.execPath)} ${JSON.stringify(demoMain)} --time-scale 120 --run-dir ${JSON.stringify(runDir)}; echo "demo exited $?"; sleep 120`;
    expect(tmux("new-session", "-d", "-s", "demo", "-x", "80", "-y", "24", cmd).status).toBe(0);

    const wrong: string[] = [];
    let screens = 0;
    let final: string[] | undefined;
    const deadline = Date.now() + 200_000;
    while (!final && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 500));
      const lines = capture();
      if (!lines[0]?.startsWith("Lockstep demo —")) {
        // Only before the view is up: the start-up lines on the normal screen.
        if (screens > 0) wrong.push(`no title on the first line:\n${lines.join("\n")}`);
        continue;
      }
      screens++;
      if (lines.length > 24) wrong.push(`${lines.length} lines`);
      const text = lines.join("\n");
      if (!new RegExp(`^ ▶ \\d+/${STEPS.length} `, "m").test(text) && !/^ [✔✘] /m.test(lines[1] ?? "")) wrong.push(`no current step:\n${text}`);
      if (/^ ✘ /m.test(text)) throw new Error(`a step failed:\n${text}`);
      if (lines[1]?.startsWith(` ✔ All ${STEPS.length} steps happened`)) final = lines;
    }
    expect(wrong).toEqual([]);
    expect(screens).toBeGreaterThan(10);
    expect(final, "the final screen did not come").toBeDefined();
    const text = final!.join("\n");
    for (const pool of ["master", "worker", "infra"]) expect(text).toMatch(new RegExp(`^ ✔ ${pool} +Completed +100% \\(\\d+/\\d+\\) +every node on 4\\.16\\.3$`, "m"));
    expect(text).not.toContain("▶");
    expect(text).not.toMatch(/-\d+[hms]/);

    tmux("send-keys", "-t", "demo", "C-c");
    let after: string[] = [];
    for (let i = 0; i < 60 && !after.some((l) => l.startsWith("demo exited")); i++) {
      await new Promise((r) => setTimeout(r, 1000));
      after = tmux("capture-pane", "-p", "-S", "-200", "-t", "demo").stdout.split("\n");
    }
    expect(after).toContain("demo exited 0");
    expect(after).toContain("Point the CLI at this demo from another terminal, in the repository root:");
    expect(after.some((l) => /^ {2}\. \S+lockstep\.env$/.test(l))).toBe(true);
  });
});
