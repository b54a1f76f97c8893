// A real Prometheus on loopback against a running system, shared by the alerts e2e test and the demo:
// it scrapes every service replica (file-based discovery written from the launcher's ports, labelled
// as the chart's ServiceMonitor labels them) and evaluates the chart's own PrometheusRule, rendered
// by helm with the caller's (shortened) thresholds. Finding the binaries never installs anything:
// scripts/prometheus.mjs does that for the tests.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseAllDocuments } from "yaml";
import { guardian } from "./guardian.js";
import { freePort } from "./ports.js";
import type { RunningSystem } from "./system.js";
import { SERVICE_NAMES } from "./services.js";

/** The repository's root, from src/ or dist/ of this package. */
const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
/** The chart whose PrometheusRule is evaluated. */
export const CHART_DIR = join(REPO_ROOT, "deploy", "helm", "lockstep");
/** The namespace label every target gets (the chart's release namespace in the rules' selector). */
export const PROMETHEUS_NAMESPACE = "lockstep";

/**
 * A tool binary: $<NAME>_BIN when set, else the repository's .tools/<subdir>/<name> (where
 * scripts/tools.mjs and scripts/prometheus.mjs put them), else the first on PATH; undefined if none.
 */
export function findTool(name: string, subdir: string | undefined, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const fromEnv = env[`${name.toUpperCase()}_BIN`];
  if (fromEnv) return existsSync(fromEnv) ? fromEnv : undefined;
  const local = join(REPO_ROOT, ".tools", ...(subdir ? [subdir] : []), name);
  if (existsSync(local)) return local;
  for (const dir of (env.PATH ?? "").split(delimiter)) if (dir && existsSync(join(dir, name))) return join(dir, name);
  return undefined;
}

/** Values under global.metrics.prometheusRule (see the chart's values.yaml), merged over the chart's. */
export type PrometheusRuleValues = Record<string, unknown>;

/**
 * The chart's alert rules as a Prometheus rules file (JSON, which Prometheus reads as YAML). The
 * selector is the targets' namespace label; `check` names texts the rendered rules must contain,
 * since helm silently ignores a mistyped --set-json path.
 */
export function renderChartRules(o: { helm: string; values: PrometheusRuleValues; check?: string[] }): string {
  const rule = JSON.stringify({ enabled: true, selector: `namespace="${PROMETHEUS_NAMESPACE}"`, ...o.values });
  const r = spawnSync(
    o.helm,
    ["template", "lockstep", CHART_DIR, "--namespace", PROMETHEUS_NAMESPACE, "--api-versions", "monitoring.coreos.com/v1/PrometheusRule", "--show-only", "templates/prometheusrule.yaml", "--set-json", `global.metrics.prometheusRule=${rule}`],
    { encoding: "utf8" },
  );
  if (r.error) throw new Error(`helm template: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`helm template failed: ${r.stderr.trim()}`);
  const manifest = parseAllDocuments(r.stdout)
    .map((d) => d.toJS())
    .find((obj) => obj?.kind === "PrometheusRule");
  if (!manifest?.spec?.groups) throw new Error("helm template rendered no PrometheusRule");
  const text = JSON.stringify({ groups: manifest.spec.groups }, null, 1);
  const missing = [`namespace=\\"${PROMETHEUS_NAMESPACE}\\"`, ...(o.check ?? [])].filter((c) => !text.includes(c));
  if (missing.length) throw new Error(`the rendered rules do not carry the values given (missing ${missing.join(", ")})`);
  return text;
}

/** File-based discovery targets: every replica's metrics port, labelled as the chart's ServiceMonitor would. */
export function scrapeTargets(system: Pick<RunningSystem, "replicas">): Array<{ targets: string[]; labels: Record<string, string> }> {
  return SERVICE_NAMES.flatMap((s) =>
    (system.replicas.get(s) ?? []).map((r) => ({ targets: [`127.0.0.1:${r.http}`], labels: { job: `lockstep-${s}`, namespace: PROMETHEUS_NAMESPACE } })),
  );
}

export interface PrometheusAlert {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  state: string;
  activeAt?: string;
}

export interface RunningPrometheus {
  readonly url: string;
  readonly pid: number | undefined;
  /** Rewrites the discovery file (picked up within the refresh interval). */
  setTargets(system: Pick<RunningSystem, "replicas">): void;
  /** Every alert Prometheus holds (pending and firing); throws when it cannot be read. */
  alerts(): Promise<PrometheusAlert[]>;
  /** An instant query's result vector. */
  query(q: string): Promise<Array<{ metric: Record<string, string>; value: [number, string] }>>;
  stop(): Promise<void>;
}

export interface PrometheusOptions {
  binary: string;
  /** The rules file's text (renderChartRules). */
  rules: string;
  system: Pick<RunningSystem, "replicas">;
  /** Listen on this loopback port (a caller that must name the address before it starts); default a free one. */
  port?: number;
  /** Scrape and evaluation interval, e.g. "1s". */
  interval?: string;
  readyTimeoutMs?: number;
}

/** Starts Prometheus on a free loopback port and resolves once it answers /-/ready. */
export async function startPrometheus(o: PrometheusOptions): Promise<RunningPrometheus> {
  const dir = mkdtempSync(join(tmpdir(), "lockstep-prometheus-"));
  const guard = guardian();
  guard.watchDir(dir);
  const interval = o.interval ?? "1s";
  const port = o.port ?? (await freePort());
  const url = `http://127.0.0.1:${port}`;
  const targetsPath = join(dir, "targets.json");
  const setTargets = (system: Pick<RunningSystem, "replicas">) => {
    // Renamed into place: Prometheus never reads a half-written file.
    writeFileSync(`${targetsPath}.part`, JSON.stringify(scrapeTargets(system)));
    renameSync(`${targetsPath}.part`, targetsPath);
  };
  setTargets(o.system);
  writeFileSync(join(dir, "rules.json"), o.rules);
  writeFileSync(
    join(dir, "prometheus.yml"),
    JSON.stringify({
      global: { scrape_interval: interval, evaluation_interval: interval },
      rule_files: [join(dir, "rules.json")],
      scrape_configs: [{ job_name: "lockstep", file_sd_configs: [{ files: [targetsPath], refresh_interval: interval }] }],
    }),
  );
  let output = "";
  const proc: ChildProcess = spawn(o.binary, [`--config.file=${join(dir, "prometheus.yml")}`, `--storage.tsdb.path=${join(dir, "data")}`, `--web.listen-address=127.0.0.1:${port}`], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  proc.stderr?.on("data", (d) => (output = (output + String(d)).slice(-4000)));
  if (proc.pid !== undefined) guard.watchProcess(proc.pid);
  let spawnError: Error | undefined;
  // A binary that cannot be spawned emits "error" and no "exit".
  const exited = new Promise<void>((r) => {
    proc.once("exit", () => r());
    proc.once("error", (err) => {
      spawnError = err;
      r();
    });
  });
  const stop = async () => {
    if (!spawnError && proc.exitCode === null && proc.signalCode === null) proc.kill("SIGTERM");
    await exited;
    if (proc.pid !== undefined) guard.forgetProcess(proc.pid);
    rmSync(dir, { recursive: true, force: true });
    guard.forgetDir(dir);
  };
  const getJson = async (path: string): Promise<any> => {
    const res = await fetch(`${url}${path}`);
    if (!res.ok) throw new Error(`Prometheus ${path}: HTTP ${res.status}`);
    return res.json();
  };
  const deadline = Date.now() + (o.readyTimeoutMs ?? 30_000);
  for (;;) {
    if (spawnError || proc.exitCode !== null || proc.signalCode !== null) {
      await stop();
      const why = spawnError?.message ?? (output.trim().split("\n").slice(-3).join(" / ") || `exit code ${proc.exitCode ?? proc.signalCode}, no output`);
      throw new Error(`prometheus exited before it was ready: ${why}`);
    }
    if ((await fetch(`${url}/-/ready`).catch(() => undefined))?.ok) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`prometheus not ready on ${url} within ${o.readyTimeoutMs ?? 30_000} ms: ${output.trim().split("\n").slice(-3).join(" / ")}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url,
    pid: proc.pid,
    setTargets,
    alerts: async () => (await getJson("/api/v1/alerts")).data.alerts as PrometheusAlert[],
    query: async (q) => (await getJson(`/api/v1/query?query=${encodeURIComponent(q)}`)).data.result,
    stop,
  };
}
