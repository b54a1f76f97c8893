// `lockstep sim`: the cluster simulator. `sim run` plays a scenario against an API server (or an
// embedded kube-sim); `sim generate` prints or creates a generated cluster.
import { readFile } from "node:fs/promises";
import { applyObjects, generateCluster, KubeWriter, kubeConfigForUrl, loadKubeConfig, loadScenario, parseClusterSpec, runScenario, type LeaseMode } from "@lockstep/cluster-sim";
import { startKubeSim, type KubeSim } from "@lockstep/kube-sim";
import { InvalidArgumentError, Option, type Command } from "commander";
import { parse, stringify } from "yaml";
import { versionArg } from "../args.js";
import { CliError, EXIT } from "../exit-codes.js";

/** The spec or scenario named on the command line is an argument: one that cannot be read or parsed is a usage error. */
async function usage<T>(f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (err) {
    throw err instanceof CliError ? err : new CliError(EXIT.USAGE, err instanceof Error ? err.message : String(err));
  }
}

function positive(name: string) {
  return (v: string): number => {
    const n = Number(v);
    if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError(`${name} must be a positive number`);
    return n;
  };
}

interface Target {
  server?: string;
  kubeconfig?: string;
  embedded?: boolean;
}

async function connect(t: Target): Promise<{ kc: ReturnType<typeof kubeConfigForUrl>; sim?: KubeSim; where: string }> {
  if (t.server && t.embedded) throw new CliError(EXIT.USAGE, "use either --server or --embedded, not both");
  if (t.server) return { kc: kubeConfigForUrl(t.server, process.env.LOCKSTEP_KUBE_TOKEN), where: t.server };
  if (t.kubeconfig) return { kc: loadKubeConfig(t.kubeconfig), where: t.kubeconfig };
  const sim = await startKubeSim({ crds: "openshift" });
  return { kc: kubeConfigForUrl(sim.url), sim, where: `embedded kube-sim at ${sim.url}` };
}

export function register(program: Command): void {
  const sim = program.command("sim").description("simulate an OpenShift-like cluster updating (against kube-sim or any API server)");
  sim
    .command("run")
    .description("run a scenario (a name from packages/cluster-sim/scenarios, or a YAML file)")
    .requiredOption("--scenario <name|file>", "scenario name or file")
    .option("--server <url>", "API server URL (plain HTTP, e.g. kube-sim); token from LOCKSTEP_KUBE_TOKEN")
    .option("--kubeconfig <file>", "kubeconfig of the API server")
    .option("--embedded", "start kube-sim in-process (the default when no server is given)")
    .option("--time-scale <x>", "simulated seconds per real second (overrides the scenario)", positive("--time-scale"))
    .option("--seed <n>", "random seed (overrides the scenario)", positive("--seed"))
    .addOption(
      new Option("--leases <mode>", "cooperate: the MCO asks Lockstep before updating a node; enforced: it asks no one, writes as its ServiceAccounts (overrides the scenario)").choices([
        "cooperate",
        "enforced",
      ]),
    )
    .option("--snapshot-dir <dir>", "write snapshot steps as status fixture files here")
    .option("--keep-running", "keep simulating after the last step (Ctrl-C to stop)", false)
    .action(async (f: { scenario: string; server?: string; kubeconfig?: string; embedded?: boolean; timeScale?: number; seed?: number; leases?: LeaseMode; snapshotDir?: string; keepRunning: boolean }) => {
      const sc = await usage(() => loadScenario(f.scenario));
      const { kc, sim: ks, where } = await connect(f);
      const say = (l: string) => process.stdout.write(`${l}\n`);
      say(`scenario ${sc.name} on ${where}, time scale ${f.timeScale ?? sc.timeScale}x, seed ${f.seed ?? sc.seed}, leases ${f.leases ?? sc.leases ?? "cooperate"}`);
      try {
        const r = await runScenario(sc, { kc, timeScale: f.timeScale, seed: f.seed, leases: f.leases, snapshotDir: f.snapshotDir, report: say, keepRunning: f.keepRunning });
        const st = r.sim.stats();
        say(`scenario ${sc.name} passed in ${(r.elapsedMs / 1000).toFixed(1)} s: ${st.writes} API writes (${st.conflicts} conflicts), ${st.heartbeats} heartbeats`);
        if (f.keepRunning) {
          say("simulation keeps running; Ctrl-C to stop");
          await new Promise<void>((resolve) => process.once("SIGINT", () => resolve()));
          await r.sim.stop();
        }
      } finally {
        await ks?.stop();
      }
    });
  sim
    .command("generate")
    .description("generate a cluster from a spec file or flags; print it as YAML, or create it on --server")
    .option("--spec <file>", "cluster spec YAML (the `cluster:` part of a scenario)")
    .option("--platform <p>", "aws, gcp, azure or vsphere")
    .option("--region <r>", "cloud region")
    .option("--version <v>", "current OpenShift version, e.g. 4.16.3", versionArg)
    .option("--masters <n>", "control-plane nodes", positive("--masters"))
    .option("--workers <n>", "size of the worker pool", positive("--workers"))
    .option("--max-unavailable <v>", "worker pool maxUnavailable (integer or N%)")
    .option("--server <url>", "create the objects on this API server instead of printing them")
    .addOption(new Option("-o, --output <format>", "print the objects as YAML (the default) or JSON").choices(["json", "yaml"]))
    .action(async (f: { spec?: string; platform?: string; region?: string; version?: string; masters?: number; workers?: number; maxUnavailable?: string; server?: string; output?: "json" | "yaml" }) => {
      if (f.server && f.output) throw new CliError(EXIT.USAGE, "-o is for printing; with --server the objects are created instead");
      const doc = (f.spec ? await usage(async () => parse(await readFile(f.spec!, "utf8"))) : {}) ?? {};
      const base = (doc.cluster ?? doc) as Record<string, unknown>;
      const merged: Record<string, unknown> = { ...base };
      if (f.platform) merged.platform = f.platform;
      if (f.region) merged.region = f.region;
      if (f.version) merged.version = f.version;
      if (f.masters) merged.masters = f.masters;
      if (f.workers || f.maxUnavailable) merged.pools = [{ name: "worker", size: f.workers ?? 3, maxUnavailable: f.maxUnavailable ?? 1 }];
      const spec = await usage(async () => parseClusterSpec(merged));
      const gen = generateCluster(spec);
      if (!f.server) {
        const list = { apiVersion: "v1", kind: "List", items: gen.objects, metadata: { resourceVersion: "" } };
        process.stdout.write(f.output === "json" ? `${JSON.stringify(list, null, 2)}\n` : stringify(list, { lineWidth: 0 }));
        return;
      }
      const w = new KubeWriter(kubeConfigForUrl(f.server, process.env.LOCKSTEP_KUBE_TOKEN));
      const r = await applyObjects(w, gen.objects);
      w.close();
      process.stdout.write(`created ${r.created} objects (${r.existing} already existed) on ${f.server}\n`);
    });
}
