// Start-up of the `lockstep` command (issue 32: "the CLI starts like a CLI"): wall time and peak RSS
// of whole runs of the built CLI (packages/cli/dist/main.js, with the flags scripts/lockstep.mjs
// gives it), for `--help`, an offline `status --from-dir` on a golden case, and a live `status`
// against a gRPC UpdateStatusService on loopback that answers RenderStatus at once (a stand-in, so
// the figure is the CLI's own cost: start, load, connect, one call, print). Also `--help` through
// the wrapper scripts/lockstep.mjs (two Node starts). Target: `--help` <= 0.2 s (p50).
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Server, ServerCredentials } from "@grpc/grpc-js";
import { RenderStatusResponse, UpdateStatusServiceService } from "@lockstep/contracts";
import { ocUpgradeStatusDir } from "@lockstep/testing";
import { CLI_NODE_FLAGS } from "../scripts/cli-node-flags.mjs";
import { sized } from "./lib/quick.js";
import { summary, type BenchResult } from "./lib/stats.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const mainJs = join(root, "packages", "cli", "dist", "main.js");
const wrapper = join(root, "scripts", "lockstep.mjs");
const HELP_TARGET_MS = 200;
const TIME = existsSync("/usr/bin/time");

/**
 * One run: wall ms from spawn to exit, CPU ms (user + system) and peak RSS in MiB (GNU time's %U, %S
 * and %M; NaN without /usr/bin/time). CPU time is the steadier figure on a shared, loaded machine.
 */
function runOnce(argv: string[]): Promise<{ ms: number; cpuMs: number; rssMiB: number; code: number | null; out: string }> {
  return new Promise((done, fail) => {
    const t0 = performance.now();
    // /usr/bin/time prints its figures on stderr's last line; it adds about 1 ms.
    const cmd = TIME ? ["/usr/bin/time", "-f", "rss=%M cpu=%U+%S", process.execPath] : [process.execPath];
    const p = spawn(cmd[0]!, [...cmd.slice(1), ...argv], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, LOCKSTEP_STATUS_AGGREGATOR_ADDR: "" } });
    let out = "";
    let err = "";
    p.stdout.on("data", (d) => (out += d));
    p.stderr.on("data", (d) => (err += d));
    p.on("error", fail);
    p.on("exit", (code) => {
      const ms = performance.now() - t0;
      const m = /rss=(\d+) cpu=([\d.]+)\+([\d.]+)\s*$/.exec(err);
      const rssMiB = m ? Number(m[1]) / 1024 : NaN;
      const cpuMs = m ? (Number(m[2]) + Number(m[3])) * 1000 : NaN;
      done({ ms, cpuMs, rssMiB, code, out: code === 0 ? out : err });
    });
  });
}

async function startStandIn(): Promise<{ address: string; stop(): Promise<void> }> {
  const server = new Server();
  server.addService(UpdateStatusServiceService, {
    renderStatus: (_call: unknown, cb: (e: null, r: RenderStatusResponse) => void) => cb(null, RenderStatusResponse.fromPartial({ text: "= Control Plane =\nAssessment: Completed\n" })),
  } as never);
  const port = await new Promise<number>((ok, ko) => server.bindAsync("127.0.0.1:0", ServerCredentials.createInsecure(), (e, p) => (e ? ko(e) : ok(p))));
  return { address: `127.0.0.1:${port}`, stop: () => new Promise<void>((r) => server.tryShutdown(() => r())) };
}

export async function benchCliStartup(): Promise<BenchResult[]> {
  const runs = sized("BENCH_CLI_RUNS", 15, 1);
  const standIn = await startStandIn();
  const cases: Array<[string, string[]]> = [
    ["--help", [...CLI_NODE_FLAGS, mainJs, "--help"]],
    ["status --from-dir (offline)", [...CLI_NODE_FLAGS, mainJs, "status", "--from-dir", ocUpgradeStatusDir(), "--case", "4.14.1-paused-worker-pool"]],
    ["status (live, one RenderStatus)", [...CLI_NODE_FLAGS, mainJs, "status", "--server", standIn.address]],
    ["--help via scripts/lockstep.mjs", [wrapper, "--help"]],
  ];
  const results: BenchResult[] = [];
  try {
    for (const [name, argv] of cases) {
      const first = await runOnce(argv); // warms the file cache; not counted
      if (first.code !== 0) throw new Error(`lockstep ${name} exited ${first.code}: ${first.out}`);
      const ms: number[] = [];
      const rss: number[] = [];
      const cpu: number[] = [];
      for (let i = 0; i < runs; i++) {
        const r = await runOnce(argv);
        if (r.code !== 0) throw new Error(`lockstep ${name} exited ${r.code}: ${r.out}`);
        ms.push(r.ms);
        rss.push(r.rssMiB);
        cpu.push(r.cpuMs);
      }
      const t = summary(ms);
      const m = summary(rss);
      const isHelp = name === "--help";
      results.push({ bench: "cli-startup", metric: `${name}: wall p50 (${runs} runs)`, value: t.p50, unit: "ms", ...(isHelp ? { target: `<= ${HELP_TARGET_MS}`, ok: t.p50 <= HELP_TARGET_MS } : {}) });
      results.push({ bench: "cli-startup", metric: `${name}: wall max`, value: t.max, unit: "ms" });
      results.push({ bench: "cli-startup", metric: `${name}: CPU (user+system) p50`, value: summary(cpu).p50, unit: "ms" });
      results.push({ bench: "cli-startup", metric: `${name}: peak RSS p50`, value: m.p50, unit: "MiB" });
    }
  } finally {
    await standIn.stop();
  }
  return results;
}
