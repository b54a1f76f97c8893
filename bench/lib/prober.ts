// Starts the insight prober (probe-process.ts) as a child process and asks it for windows of probes.
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { ProbeSetup, ProbeWindow } from "./probe-process.js";

export interface Prober {
  pid: number;
  /** Probes for `windowS` seconds; resolves with that window's figures. */
  window(windowS: number): Promise<ProbeWindow>;
  stop(): Promise<void>;
}

export async function startProber(setup: ProbeSetup): Promise<Prober> {
  const script = fileURLToPath(new URL("probe-process.ts", import.meta.url));
  const child = fork(script, [JSON.stringify(setup)], { execArgv: ["--import", "tsx"], stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  const next = () =>
    new Promise<unknown>((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`the prober exited with ${code}`));
      child.once("exit", onExit);
      child.once("message", (m) => {
        child.off("exit", onExit);
        resolve(m);
      });
    });
  if ((await next()) !== "ready") throw new Error("the prober did not start");
  return {
    pid: child.pid!,
    async window(windowS) {
      const reply = next();
      child.send({ windowS });
      return (await reply) as ProbeWindow;
    },
    async stop() {
      if (child.exitCode === null) child.send("stop");
      await exited;
    },
  };
}
