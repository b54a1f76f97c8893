// Process figures from /proc (Linux) and kube-sim in its own process, shared by the benchmarks.
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";

/** CPU seconds (user+system) of a process. */
export function procCpuSeconds(pid: number): number {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return NaN;
  }
}

function statusKb(pid: number, field: "VmRSS" | "VmHWM"): number {
  try {
    const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) : NaN;
  } catch {
    return NaN;
  }
}

/** Resident memory now, MiB. */
export const procRssMb = (pid: number) => statusKb(pid, "VmRSS") / 1024;
/** Peak resident memory since the process started, MiB. */
export const procPeakRssMb = (pid: number) => statusKb(pid, "VmHWM") / 1024;

/** Starts kube-sim (OpenShift CRDs) in a child process; resolves with its URL and pid. */
export async function startKubeSimProcess(cwd: string): Promise<{ url: string; pid: number; stop: () => void }> {
  const code = `import { startKubeSim } from "@lockstep/kube-sim";
const s = await startKubeSim({ crds: "openshift", historyLimit: 200000 });
process.stdout.write(s.url + "\\n");
process.on("SIGTERM", async () => { await s.stop(); process.exit(0); });`;
  // BENCH_KUBE_SIM_PROFILE_DIR: a V8 CPU profile of the simulated API server, written when it stops.
  const profile = process.env.BENCH_KUBE_SIM_PROFILE_DIR ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_KUBE_SIM_PROFILE_DIR}`] : [];
  const child = spawn(process.execPath, ["--max-old-space-size=4096", ...profile, "--input-type=module", "-e", code], { cwd, stdio: ["ignore", "pipe", "inherit"] });
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.once("data", (d: Buffer) => resolve(d.toString().trim()));
    child.once("exit", (c) => reject(new Error(`kube-sim exited with ${c}`)));
  });
  // A bench that fails half-way must not leave a 10,000-node API server behind.
  const orphanGuard = () => child.kill("SIGKILL");
  process.once("exit", orphanGuard);
  return {
    url,
    pid: child.pid!,
    stop: () => {
      process.off("exit", orphanGuard);
      child.kill("SIGTERM");
    },
  };
}

/** A child process of a benchmark and how to stop it (SIGTERM, resolved at its exit). */
export interface Child {
  proc: ChildProcess;
  stop(): Promise<void>;
}

export const stopChild = (proc: ChildProcess) => new Promise<void>((r) => (proc.exitCode !== null ? r() : (proc.once("exit", () => r()), proc.kill("SIGTERM"))));

/** Starts `node args…` and resolves once its stdout matches `ready` (or rejects on early exit). */
export function spawnUntil(args: string[], env: Record<string, string>, ready: RegExp): Promise<{ child: Child; match: RegExpMatchArray }> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "inherit"] });
    let buf = "";
    const onData = (d: Buffer) => {
      buf += d.toString();
      const m = ready.exec(buf);
      if (m) {
        proc.stdout!.off("data", onData);
        proc.stdout!.resume();
        resolve({ child: { proc, stop: () => stopChild(proc) }, match: m });
      }
    };
    proc.stdout!.on("data", onData);
    proc.once("exit", (code) => reject(new Error(`node ${args.join(" ")} exited with ${code} before it was ready`)));
  });
}
