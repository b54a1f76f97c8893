#!/usr/bin/env node
// `npm run demo [-- --ci] [--time-scale N] [--run-dir DIR]`
import { constants } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { closeBus, connectBus } from "@lockstep/bus";
import { describeSupervisorEvent } from "@lockstep/launcher";
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
// Every way of being asked to stop ends in the same clean-up (env.stop in `finally`); a second
// signal, or SIGKILL, ends the process at once and the children clean up after themselves
// (parent-watch pipe for the services, the launcher's guardian for nats-server and its folder).
let signalled: NodeJS.Signals | undefined;
for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"] as const)
  process.once(sig, () => {
    signalled ??= sig;
    stop.abort();
  });
/** Clean-up that hangs must not keep the demo from exiting. */
const STOP_TIMEOUT_MS = 30_000;

const say = (line: string) => ci && console.log(line);
say(`lockstep demo: run folder ${runDir}`);

let results: StepResult[] = [];
let exitCode = 1;
const events = new EventLog();
if (ci) events.onEvent((e) => console.log(`  event ${e.text}`));
const view: View = { steps: STEPS.map((s) => s.name), current: 0, results: [], statusText: "", events: events.events, note: `${versions.current} → ${versions.target}, ${timeScale}x time` };
try {
  env = await startEnvironment({
    runDir,
    spec: DEMO_SPEC,
    leases: "enforced",
    timeScale,
    natsUrl: process.env.NATS_URL,
    log: (l) => say(`  ${l}`),
    // A crashed service (or nats-server) is restarted with backoff and shows up in the event log.
    onSupervisorEvent: (e) => events.note(`supervisor.${e.kind}`, describeSupervisorEvent(e), e),
  });
  const clients = new Clients(env.system);
  const nc = await connectBus({ servers: env.natsUrl, name: "lockstep-demo" });
  const feeding = events.start(nc, stop.signal);

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
      view.waiting = undefined;
      say(`step ${i + 1}/${STEPS.length}: ${name}`);
    },
    onWaiting: (what, ms, reason) => {
      view.waiting = `waiting ${Math.round(ms / 1000)} s for ${what}: ${reason}`;
      say(`  still ${view.waiting}`);
    },
    onResult: (r) => {
      view.waiting = undefined;
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
  const stopped = env?.stop().then(() => true) ?? Promise.resolve(true);
  const inTime = await Promise.race([stopped, new Promise<false>((r) => setTimeout(() => r(false), STOP_TIMEOUT_MS).unref())]);
  if (!inTime) console.error(`lockstep demo: clean-up did not finish within ${STOP_TIMEOUT_MS / 1000} s; exiting (the launcher's guardian removes what is left)`);
}
if (stop.signal.aborted && results.length < STEPS.length && exitCode !== 0) console.log("stopped");
// Stopped by a signal before every step happened: the shell convention, 128 + the signal number.
if (exitCode !== 0 && signalled) exitCode = 128 + constants.signals[signalled];
process.exit(exitCode);
