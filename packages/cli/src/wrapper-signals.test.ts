// Stopping the CLI stops it: scripts/lockstep.mjs (what `pnpm -s lockstep` and the README run)
// starts the real CLI as a child; a SIGTERM sent to the wrapper alone — as systemd, tmux or
// `timeout` send it — must reach the CLI, end everything the CLI started, and end the wrapper the
// way the CLI ended. Checked for `kube-sim serve` and `up` (with its nats-server and a service).
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { startKubeSim, type KubeSim } from "@lockstep/kube-sim";
import { waitFor } from "@lockstep/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const wrapper = join(root, "scripts", "lockstep.mjs");
const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("LOCKSTEP_")));

/** Parent pid of every process now (from /proc). */
function parents(): Map<number, number> {
  const m = new Map<number, number>();
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      // Field 4 of /proc/PID/stat, after the parenthesised command name (which may hold spaces).
      const stat = readFileSync(`/proc/${d}/stat`, "utf8");
      m.set(Number(d), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // gone meanwhile
    }
  }
  return m;
}

/** Every process below `pid`. */
function descendants(pid: number): number[] {
  const ppid = parents();
  const out: number[] = [];
  const walk = (p: number) => {
    for (const [c, pp] of ppid) if (pp === p) (out.push(c), walk(c));
  };
  walk(pid);
  return out;
}

const alive = (pid: number) => existsSync(`/proc/${pid}`) && !readFileSync(`/proc/${pid}/stat`, "utf8").includes(") Z ");
const cmdline = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ").trim();
  } catch {
    return "(gone)";
  }
};

interface Run {
  child: ChildProcess;
  /** The processes under the wrapper once it was ready (orphans are no longer below it). */
  tree: number[];
  out: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function startWrapper(args: string[]): Run {
  const child = spawn(process.execPath, [wrapper, ...args], { cwd: root, env: clean, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => child.on("exit", (code, signal) => r({ code, signal })));
  return { child, tree: [], out: () => out, exited };
}

const runs: Run[] = [];
let dir: string;
let sim: KubeSim;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "lockstep-wrapper-"));
  sim = await startKubeSim();
  await sim.writeKubeconfig(join(dir, "kc.yaml"));
});
afterEach(() => {
  // A failed test must not leave its processes behind either.
  for (const r of runs.splice(0)) for (const p of new Set([r.child.pid!, ...r.tree, ...descendants(r.child.pid!)])) if (alive(p)) process.kill(p, "SIGKILL");
});
afterAll(async () => {
  await sim?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Starts the wrapper, waits for `ready` in its output, SIGTERMs the wrapper alone, and checks nothing it started lives on. */
async function stopsEverything(args: string[], ready: RegExp, minProcesses: number, timeoutMs: number) {
  const run = startWrapper(args);
  runs.push(run);
  await waitFor(() => ready.test(run.out()), { timeoutMs, what: `${args.join(" ")} to be ready`, explain: () => run.out() });
  const tree = (run.tree = descendants(run.child.pid!));
  expect(tree.length, `processes under the wrapper: ${tree.map(cmdline).join(" | ")}`).toBeGreaterThanOrEqual(minProcesses);
  process.kill(run.child.pid!, "SIGTERM");
  const end = await run.exited;
  // The CLI handles SIGTERM and exits 0; the wrapper exits the same way, only after it.
  expect(end, run.out()).toEqual({ code: 0, signal: null });
  await waitFor(() => tree.every((p) => !alive(p)), {
    timeoutMs: 30_000,
    what: "every process the CLI started to end",
    explain: () => `still running: ${tree.filter(alive).map((p) => `${p} ${cmdline(p)}`).join(" | ")}`,
  });
}

describe("scripts/lockstep.mjs passes stop signals to the CLI", () => {
  it("SIGTERM to the wrapper of `kube-sim serve` ends kube-sim", async () => {
    await stopsEverything(["kube-sim", "serve"], /^http:\/\/127\.0\.0\.1:\d+$/m, 1, 30_000);
  }, 60_000);

  it("SIGTERM to the wrapper of `up` ends the CLI, its nats-server and its service", async () => {
    const args = ["up", "--kubeconfig", join(dir, "kc.yaml"), "--nats-cluster", "1", "--services", "watcher", "--free-ports", "--run-dir", join(dir, "up")];
    await stopsEverything(args, /all services ready/, 3, 90_000);
  }, 150_000);

  it("ends by the signal that ended the CLI", async () => {
    const run = startWrapper(["kube-sim", "serve"]);
    runs.push(run);
    await waitFor(() => /^http:\/\/127\.0\.0\.1:\d+$/m.test(run.out()), { timeoutMs: 30_000, what: "kube-sim serve to be ready", explain: () => run.out() });
    const cli = (run.tree = descendants(run.child.pid!)).find((p) => cmdline(p).includes("main.js kube-sim serve"));
    expect(cli, run.tree.map(cmdline).join(" | ")).toBeDefined();
    process.kill(cli!, "SIGKILL");
    expect(await run.exited).toEqual({ code: null, signal: "SIGKILL" });
  }, 60_000);

  it("ends with the CLI's exit code", async () => {
    const run = startWrapper(["status", "--from-dir", "x"]);
    runs.push(run);
    expect(await run.exited).toEqual({ code: 2, signal: null });
    expect(run.out()).toContain("offline mode needs both --from-dir DIR and --case NAME");
  }, 30_000);
});
