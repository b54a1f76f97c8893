// Process figures from /proc (Linux) and kube-sim in its own process, shared by the benchmarks.
import { spawn } from "node:child_process";
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
  const child = spawn(process.execPath, ["--max-old-space-size=4096", "--input-type=module", "-e", code], { cwd, stdio: ["ignore", "pipe", "inherit"] });
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
