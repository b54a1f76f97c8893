#!/usr/bin/env node
// `npm run demo [-- --ci] [--time-scale N] [--run-dir DIR]`
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { closeBus, connectBus } from "@lockstep/bus";
import { Clients } from "./clients.js";
import { DEMO_SPEC, startEnvironment, type Environment } from "./environment.js";
import { EventLog } from "./events.js";
import { runStory, STEPS, type StepResult } from "./story.js";
import { renderView, summaryLines, type View } from "./ui.js";

const { values: args } = parseArgs({
  options: {
    ci: { type: "boolean", default: false },
    "time-scale": { type: "string", default: "60" },
    "run-dir": { type: "string" },
  },
});
const ci = args.ci || !process.stdout.isTTY;
const timeScale = Number(args["time-scale"]);
if (!Number.isFinite(timeScale) || timeScale <= 0) {
  console.error(`lockstep demo: --time-scale must be a positive number, got ${args["time-scale"]}`);
  process.exit(2);
}
const runDir = resolve(args["run-dir"] ?? join(".runs", `demo-${new Date().toISOString().replace(/[:.]/g, "-")}`));
const versions = { current: DEMO_SPEC.version, target: "4.16.3", next: "4.17.0" };

const stop = new AbortController();
let env: Environment | undefined;
process.once("SIGINT", () => stop.abort());
process.once("SIGTERM", () => stop.abort());

const say = (line: string) => ci && console.log(line);
say(`lockstep demo: run folder ${runDir}`);

let results: StepResult[] = [];
let exitCode = 1;
try {
  env = await startEnvironment({ runDir, spec: DEMO_SPEC, timeScale, natsUrl: process.env.NATS_URL, log: (l) => say(`  ${l}`) });
  const clients = new Clients(env.system);
  const nc = await connectBus({ servers: env.natsUrl, name: "lockstep-demo" });
  const events = new EventLog();
  const feeding = events.start(nc, stop.signal);
  if (ci) events.onEvent((e) => console.log(`  event ${e.text}`));

  const view: View = { steps: STEPS.map((s) => s.name), current: 0, results: [], statusText: "", events: events.events, note: `${versions.current} → ${versions.target}, ${timeScale}x time` };
  let redraw: NodeJS.Timeout | undefined;
  if (!ci) {
    const draw = async () => {
      try {
        const r = await clients.call(clients.status, clients.status.renderStatus, { details: "nodes" });
        view.statusText = r.text;
      } catch (err) {
        view.statusText = `(status unavailable: ${(err as Error).message})`;
      }
      process.stdout.write(renderView(view, process.stdout.columns ?? 120, process.stdout.rows ?? 40));
    };
    redraw = setInterval(() => void draw(), 1000);
  }

  results = await runStory({
    env,
    clients,
    events,
    versions,
    waitMs: Number(process.env.DEMO_STEP_TIMEOUT_MS ?? 240_000),
    signal: stop.signal,
    onStep: (i, name) => {
      view.current = i;
      say(`step ${i + 1}/${STEPS.length}: ${name}`);
    },
    onResult: (r) => {
      view.results.push(r);
      say(`  ${r.ok ? "ok" : "FAILED"}: ${r.detail}`);
    },
  });
  clearInterval(redraw);
  exitCode = results.length === STEPS.length && results.every((r) => r.ok) ? 0 : 1;
  if (!ci && exitCode === 0 && !stop.signal.aborted) {
    // Keep the live view until Ctrl-C, so the finished cluster can be explored (see the README).
    process.stdout.write(`\nAll ${STEPS.length} steps happened. Services keep running; in another terminal:\n  KUBECONFIG=${env.kubeconfigPath} kubectl get nodes\n  LOCKSTEP_STATUS_AGGREGATOR_ADDR=${env.system.grpcAddress("status-aggregator")} pnpm -s lockstep status\nCtrl-C stops everything.\n`);
    await new Promise<void>((r) => (stop.signal.aborted ? r() : stop.signal.addEventListener("abort", () => r(), { once: true })));
  }
  for (const line of summaryLines(results, STEPS.length, events.events, runDir)) console.log(line);
  stop.abort();
  await feeding.catch(() => {});
  await closeBus(nc);
  clients.close();
} catch (err) {
  console.error(`lockstep demo failed: ${err instanceof Error ? err.message : String(err)}`);
  exitCode = 1;
} finally {
  await env?.stop();
}
if (stop.signal.aborted && results.length < STEPS.length && exitCode !== 0) console.log("stopped");
process.exit(exitCode);
