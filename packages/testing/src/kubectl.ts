// kubectl against a server in this process: run without blocking (a blocking spawn would starve the
// server), its exit code and output collected.
import { spawn } from "node:child_process";

export interface KubectlResult {
  code: number;
  out: string;
  err: string;
}

export interface KubectlRunner {
  /** Runs `kubectl --kubeconfig <kubeconfig> ...args`. */
  (...args: string[]): Promise<KubectlResult>;
  /** The same, failing unless it exits 0; returns its stdout. */
  ok(...args: string[]): Promise<string>;
}

/**
 * kubectl at `bin`, on the kubeconfig at `kubeconfig` (both read at each call, so they may be set
 * later, in a beforeAll); `env` replaces the environment when given.
 */
export function kubectlRunner(bin: () => string, kubeconfig: () => string, env?: () => NodeJS.ProcessEnv): KubectlRunner {
  const run = (...args: string[]): Promise<KubectlResult> =>
    new Promise((resolve, reject) => {
      const child = spawn(bin(), ["--kubeconfig", kubeconfig(), ...args], { stdio: ["ignore", "pipe", "pipe"], env: env?.() });
      let out = "";
      let err = "";
      child.stdout.on("data", (d: Buffer) => (out += d.toString()));
      child.stderr.on("data", (d: Buffer) => (err += d.toString()));
      child.on("error", reject);
      child.on("close", (code) => resolve({ code: code ?? -1, out, err }));
    });
  return Object.assign(run, {
    async ok(...args: string[]): Promise<string> {
      const r = await run(...args);
      if (r.code !== 0) throw new Error(`kubectl ${args.join(" ")} failed (${r.code}): ${r.err}`);
      return r.out;
    },
  });
}
