#!/usr/bin/env node
// `npm run demo [-- --ci] [--time-scale N] [--run-dir DIR] [--nats-cluster N] [--replicas N]`
import { writeFileSync } from "node:fs";
import { constants } from "node:os";
import { isAbsolute, join, relative, resolve } from "node:path";
import { parseArgs } from "node:util";
import { closeBus, connectBus } from "@lockstep/bus";
import { describeSupervisorEvent, parseNatsClusterSize } from "@lockstep/launcher";
import { startDemoAlerts, type DemoAlerts } from "./alerts.js";
import { Clients } from "./clients.js";
import { DEMO_SPEC, startEnvironment, type Environment } from "./environment.js";
import { EventLog } from "./events.js";
import { addressVariable, cliCommand, CLI_SERVICES, connectHints, connectText, envFileText } from "./connect.js";
import { plain } from "./ansi.js";
import { runStory, STEPS, type StepResult } from "./story.js";
import { everyPoolComplete, finalScreenProblems, renderView, screen, summaryLines, type ViewState } from "./ui.js";

const { values: args } = parseArgs({
  options: {
    ci: { type: "boolean", default: false },
    "time-scale": { type: "string", default: "60" },
    "run-dir": { type: "string" },
    "nats-cluster": { type: "string" },
    replicas: { type: "string", default: "1" },
  },
});
const ci = args.ci || !process.stdout.isTTY;
const timeScale = Number(args["time-scale"]);
if (!Number.isFinite(timeScale) || timeScale <= 0) {
  console.error(`lockstep demo: --time-scale must be a positive number, got ${args["time-scale"]}`);
  process.exit(2);
}
const natsCluster = args["nats-cluster"] === undefined ? undefined : parseNatsClusterSize(args["nats-cluster"]);
if (natsCluster && "error" in natsCluster) {
  console.error(`lockstep demo: ${natsCluster.error}`);
  process.exit(2);
}
if (natsCluster && process.env.NATS_URL) {
  console.error("lockstep demo: --nats-cluster starts its own NATS servers; unset NATS_URL to use it");
  process.exit(2);
}
const replicas = Number(args.replicas);
if (!/^\d+$/.test(args.replicas ?? "") || replicas < 1 || replicas > 5) {
  console.error(`lockstep demo: --replicas must be a whole number from 1 to 5, got ${args.replicas}`);
  process.exit(2);
}
const runDir = resolve(args["run-dir"] ?? join(".runs", `demo-${new Date().toISOString().replace(/[:.]/g, "-")}`));
const versions = { current: DEMO_SPEC.version, target: "4.16.3", next: "4.17.0" };

const stop = new AbortController();
let env: Environment | undefined;
let alerts: DemoAlerts | undefined;
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
if (!ci) console.log(`lockstep demo: starting nats-server, kube-sim, cluster-sim and the five services (logs in ${runDir})`);

let results: StepResult[] = [];
let exitCode = 1;
const events = new EventLog();
if (ci) events.onEvent((e) => console.log(`  event ${e.text}`));
const view: ViewState = {
  versions,
  timeScale,
  steps: STEPS.map((s) => s.name),
  results: [],
  current: 0,
  ended: false,
  events: events.events,
  startedMs: Date.now(),
  nowMs: Date.now(),
};
/** The size the --ci run checks its final screen at: the smallest terminal the view supports. */
const CI_SCREEN = { columns: 80, rows: 24 };
// The live view draws on the alternate screen, so what was printed before it (the connect
// commands) is back in place when it ends; the final screen is printed there too.
const live = !ci;
let onScreen = false;
const enterScreen = () => {
  if (live && !onScreen) process.stdout.write("\x1b[?1049h\x1b[?25l");
  onScreen = live;
};
const leaveScreen = () => {
  if (onScreen) process.stdout.write("\x1b[?25h\x1b[?1049l");
  onScreen = false;
};
process.once("exit", leaveScreen);
const size = () => ({ columns: process.stdout.columns || 80, rows: process.stdout.rows || 24 });
try {
  env = await startEnvironment({
    runDir,
    spec: DEMO_SPEC,
    leases: "enforced",
    timeScale,
    natsUrl: process.env.NATS_URL,
    natsCluster: natsCluster?.size,
    // Above 1: every service as that many processes electing a leader, as the chart runs them.
    replicas,
    log: (l) => say(`  ${l}`),
    // A crashed service (or nats-server) is restarted with backoff and shows up in the event log.
    onSupervisorEvent: (e) => events.note(`supervisor.${e.kind}`, describeSupervisorEvent(e), e),
  });
  const running = env;
  // Lockstep's own alerts, from a real Prometheus when there is one: said once here when there is not.
  alerts = await startDemoAlerts({ system: running.system, events, log: (l) => say(`  ${l}`) });
  if (alerts.unavailable) console.log(`lockstep demo: Lockstep's alerts are not shown in this run: ${alerts.unavailable}`);
  const clients = new Clients(running.system);
  const nc = await connectBus({ servers: running.natsUrl.split(","), name: "lockstep-demo" });
  const feeding = events.start(nc, stop.signal);

  // Where the services listen, as the CLI's variables, in a file to source, printed now.
  const envPath = join(runDir, "lockstep.env");
  writeFileSync(envPath, envFileText(Object.fromEntries(CLI_SERVICES.map((s) => [s, running.system.grpcAddress(s)])), running.kubeconfigPath));
  const rel = relative(process.cwd(), envPath);
  const envShown = rel && !rel.startsWith("..") && !isAbsolute(rel) ? rel : envPath;
  const cli = cliCommand(process.env.PATH);
  for (const line of connectText(envShown, cli)) console.log(line);
  for (const s of CLI_SERVICES) say(`  ${addressVariable(s)}=${running.system.grpcAddress(s)}`);
  view.connect = connectHints(envShown, cli);

  const refreshStatus = async () => {
    try {
      const r = await clients.call(clients.status, clients.status.getUpdateStatus, { omitNodes: false });
      view.status = r.status;
      view.statusError = r.status ? undefined : "no status yet";
    } catch (err) {
      view.statusError = (err as Error).message.split("\n")[0];
    }
  };
  const draw = () => {
    if (!onScreen) return;
    view.nowMs = Date.now();
    const { columns, rows } = size();
    process.stdout.write(screen(renderView(view, columns, rows)));
  };
  let redraw: NodeJS.Timeout | undefined;
  const onResize = () => draw();
  if (live) {
    enterScreen();
    redraw = setInterval(() => void refreshStatus().then(draw), 1000);
    process.stdout.on("resize", onResize);
    draw();
  }

  results = await runStory({
    env: running,
    clients,
    events,
    versions,
    waitMs: Number(process.env.DEMO_STEP_TIMEOUT_MS ?? 240_000),
    signal: stop.signal,
    onStep: (i, name) => {
      view.current = i;
      view.stepStartedMs = Date.now();
      view.waiting = undefined;
      say(`step ${i + 1}/${STEPS.length}: ${name}`);
      draw();
    },
    onWaiting: (what, ms, reason) => {
      view.waiting = `waiting ${Math.round(ms / 1000)} s for ${what}: ${reason}`;
      say(`  still ${view.waiting}`);
    },
    onResult: (r) => {
      view.waiting = undefined;
      view.results = [...view.results, r];
      say(`  ${r.ok ? "ok" : "FAILED"}: ${r.detail}`);
      draw();
    },
  });
  exitCode = results.length === STEPS.length && results.every((r) => r.ok) ? 0 : 1;
  view.endedMs = Date.now();

  // The final screen shows the cluster as it ended: a status fetched after the last step, given a
  // few seconds to settle (a node just back from its reboot reads Unavailable for a moment).
  const settleUntil = Date.now() + 30_000;
  await refreshStatus();
  while (exitCode === 0 && !stop.signal.aborted && (view.statusError !== undefined || !everyPoolComplete(view.status, versions.target)) && Date.now() < settleUntil) {
    await new Promise((r) => setTimeout(r, 1000));
    await refreshStatus();
  }
  view.ended = true;
  view.nowMs = Date.now();
  draw();
  if (ci && exitCode === 0) {
    const lines = renderView(view, CI_SCREEN.columns, CI_SCREEN.rows);
    console.log(`final screen (${CI_SCREEN.columns}x${CI_SCREEN.rows}):`);
    for (const l of lines) console.log(`  | ${plain(l)}`);
    const problems = finalScreenProblems(view, lines, CI_SCREEN.columns, CI_SCREEN.rows);
    for (const p of problems) console.log(`  final screen wrong: ${p}`);
    if (problems.length) exitCode = 1;
  }
  if (live && exitCode === 0 && !stop.signal.aborted) {
    // Keep the live view until Ctrl-C, so the finished cluster can be explored (see the README).
    await new Promise<void>((r) => (stop.signal.aborted ? r() : stop.signal.addEventListener("abort", () => r(), { once: true })));
  }
  clearInterval(redraw);
  process.stdout.off("resize", onResize);
  if (onScreen) {
    // The last screen, on the normal screen this time, so it stays in the scrollback.
    view.nowMs = Date.now();
    const { columns, rows } = size();
    const last = renderView(view, columns, rows);
    leaveScreen();
    process.stdout.write(`${last.join("\n")}\n`);
  }
  for (const line of summaryLines(results, STEPS.length, events.events, runDir)) console.log(line);
  stop.abort();
  await feeding.catch(() => {});
  await closeBus(nc);
  clients.close();
} catch (err) {
  leaveScreen();
  console.error(`lockstep demo failed: ${err instanceof Error ? err.message : String(err)}`);
  exitCode = 1;
} finally {
  const stopped = (async () => {
    await alerts?.stop().catch(() => {});
    await env?.stop();
    return true;
  })();
  const inTime = await Promise.race([stopped, new Promise<false>((r) => setTimeout(() => r(false), STOP_TIMEOUT_MS).unref())]);
  if (!inTime) console.error(`lockstep demo: clean-up did not finish within ${STOP_TIMEOUT_MS / 1000} s; exiting (the launcher's guardian removes what is left)`);
}
if (signalled && results.length < STEPS.length && exitCode !== 0) console.log("stopped");
// Stopped by a signal before every step happened: the shell convention, 128 + the signal number.
if (exitCode !== 0 && signalled) exitCode = 128 + constants.signals[signalled];
process.exit(exitCode);
