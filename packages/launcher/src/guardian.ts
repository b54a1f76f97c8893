// A last line of defence for what a launcher cannot make watch its parent itself: nats-server is a
// Go binary, and its storage folder must go too. The guardian is a tiny detached Node process
// holding a pipe from this one; when the pipe closes (this process ended, SIGKILL included) it
// SIGKILLs the processes it was told about and deletes the folders. After an orderly stop the
// launcher has already told it to forget them, so the guardian exits without touching anything.
import { spawn, type ChildProcess } from "node:child_process";
import type { Socket } from "node:net";

// Plain CommonJS for `node -e`: no build step, no file to find from src/ or dist/.
const GUARDIAN_SCRIPT = `
const { rmSync } = require("node:fs");
const pids = new Set(), dirs = new Set();
// Its own process group already keeps a terminal's Ctrl-C away; ignore the rest as well.
for (const s of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(s, () => {});
let buf = "";
process.stdin.on("data", (d) => {
  buf += d;
  for (let i; (i = buf.indexOf("\\n")) >= 0; buf = buf.slice(i + 1)) {
    const line = buf.slice(0, i), sp = line.indexOf(" ");
    const cmd = line.slice(0, sp), arg = line.slice(sp + 1);
    if (cmd === "pid+") pids.add(Number(arg));
    else if (cmd === "pid-") pids.delete(Number(arg));
    else if (cmd === "dir+") dirs.add(arg);
    else if (cmd === "dir-") dirs.delete(arg);
  }
});
let done = false;
const cleanUp = () => {
  if (done) return;
  done = true;
  for (const p of pids) { try { process.kill(p, "SIGKILL"); } catch {} }
  const alive = () => [...pids].some((p) => { try { process.kill(p, 0); return true; } catch { return false; } });
  const deadline = Date.now() + 5000;
  const finish = () => {
    if (alive() && Date.now() < deadline) return setTimeout(finish, 50);
    for (const d of dirs) { try { rmSync(d, { recursive: true, force: true }); } catch {} }
    process.exit(0);
  };
  finish();
};
process.stdin.on("end", cleanUp);
process.stdin.on("close", cleanUp);
process.stdin.on("error", cleanUp);
`;

export interface Guardian {
  /** SIGKILL this process if the launcher ends without saying `forgetProcess`. */
  watchProcess(pid: number): void;
  forgetProcess(pid: number): void;
  /** Delete this folder if the launcher ends without saying `forgetDir`. */
  watchDir(path: string): void;
  forgetDir(path: string): void;
  readonly pid: number | undefined;
}

let shared: { child: ChildProcess; guardian: Guardian } | undefined;

/** The guardian of this process, started on first use and shared by every launcher in it. */
export function guardian(): Guardian {
  if (shared && shared.child.exitCode === null && shared.child.signalCode === null) return shared.guardian;
  const child = spawn(process.execPath, ["-e", GUARDIAN_SCRIPT], { stdio: ["pipe", "ignore", "ignore"], detached: true });
  const stdin = child.stdin as Socket;
  stdin.on("error", () => {}); // a guardian that died is replaced on the next call
  // Neither the guardian nor its pipe may keep this process alive.
  child.unref();
  stdin.unref();
  const send = (line: string) => {
    if (!stdin.destroyed) stdin.write(`${line}\n`);
  };
  const g: Guardian = {
    watchProcess: (pid) => send(`pid+ ${pid}`),
    forgetProcess: (pid) => send(`pid- ${pid}`),
    watchDir: (path) => send(`dir+ ${path}`),
    forgetDir: (path) => send(`dir- ${path}`),
    get pid() {
      return child.pid;
    },
  };
  shared = { child, guardian: g };
  return g;
}
