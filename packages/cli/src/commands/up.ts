// `lockstep up`: runs the five services locally, as separate processes, against a real cluster
// (or any API server) and a NATS server with JetStream.
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import type { Command } from "commander";
import { addressVariable, SERVICE_PORTS, type CliService } from "../addresses.js";
import { CliError, EXIT } from "../exit-codes.js";
import {
  describeSupervisorEvent,
  freePort,
  natsReplicasFor,
  parseNatsClusterSize,
  SERVICE_NAMES,
  serviceEntry,
  startNatsCluster,
  startSystem,
  Supervisor,
  type NatsCluster,
  type ServiceName,
  type SupervisorEvent,
} from "@lockstep/launcher";

export function register(program: Command): void {
  program
    .command("up")
    .description("run the five Lockstep services locally against a cluster and a NATS server")
    .requiredOption("--kubeconfig <file>", "kubeconfig of the cluster")
    .option("--nats <url>", "NATS server URL(s), comma-separated (JetStream enabled); required unless --nats-cluster")
    .option("--nats-cluster <n>", "start a local JetStream cluster of n nats-servers (1, or 3 or more) and run the services on it with NATS_REPLICAS=min(n,3)")
    .option("--run-dir <dir>", "folder for the service logs", ".runs/up")
    .option("--services <list>", `comma-separated subset of ${SERVICE_NAMES.join(",")}`)
    .option("--log-level <level>", "service log level", "info")
    .option("--replicas <n>", "processes per service; above 1 they elect a leader with Leases in --election-namespace, which must exist", "1")
    .option("--election-namespace <ns>", "namespace of the election Leases (with --replicas above 1)", "lockstep-system")
    .option("--free-ports", "listen on free ports instead of the defaults (gRPC 9090-9094, HTTP 8090-8094); the export line printed at start says where", false)
    .action(async (o: { kubeconfig: string; nats?: string; natsCluster?: string; runDir: string; services?: string; logLevel: string; replicas: string; electionNamespace: string; freePorts: boolean }) => {
      const clusterSize = natsClusterOption(o);
      const replicas = Number(o.replicas);
      if (!/^\d+$/.test(o.replicas) || replicas < 1 || replicas > 9) throw new CliError(EXIT.USAGE, `--replicas ${o.replicas}: expected a whole number from 1 to 9`);
      const services = (o.services ? o.services.split(",").map((s) => s.trim()) : [...SERVICE_NAMES]) as ServiceName[];
      const unknown = services.filter((s) => !SERVICE_NAMES.includes(s));
      if (unknown.length) throw new CliError(EXIT.USAGE, `unknown service(s): ${unknown.join(", ")} (known: ${SERVICE_NAMES.join(", ")})`);
      if (!existsSync(o.kubeconfig)) throw new CliError(EXIT.USAGE, `--kubeconfig ${o.kubeconfig}: no such file`);
      const unbuilt = services.filter((s) => !existsSync(serviceEntry(s)));
      if (unbuilt.length) throw new Error(`not built: ${unbuilt.join(", ")} — run npm run build first`);
      const runDir = resolve(o.runDir);
      // A service that crashes is restarted with backoff; each crash and restart is logged here.
      const supervise = {
        onEvent: (e: SupervisorEvent) =>
          console.error(`${e.at.toISOString()} ${describeSupervisorEvent(e)}${e.kind === "crashed" && isService(e.name) ? `; see ${runDir}/${e.name}.log` : ""}`),
      };
      // With --nats-cluster: a local cluster, each server restarted like a service when it crashes.
      let cluster: NatsCluster | undefined;
      let supervisor: Supervisor | undefined;
      if (clusterSize !== undefined) {
        cluster = await startNatsCluster({ size: clusterSize });
        supervisor = new Supervisor(supervise);
        for (const s of cluster.servers) supervisor.add(s);
        console.log(`nats cluster of ${clusterSize}: ${cluster.urls.join(",")} (NATS_REPLICAS=${natsReplicasFor(clusterSize)})`);
      }
      const natsUrl = cluster ? cluster.urls.join(",") : o.nats!;
      const env = cluster ? { "*": { NATS_REPLICAS: String(natsReplicasFor(cluster.servers.length)) } } : undefined;
      const ports: Partial<Record<ServiceName, { grpc: number; http: number }>> = {};
      if (o.freePorts) for (const s of services) ports[s] = { grpc: await freePort(), http: await freePort() };
      const system = await startSystem({
        ports,
        kubeconfig: resolve(o.kubeconfig),
        natsUrl,
        runDir,
        services,
        logLevel: o.logLevel,
        supervise: supervisor ?? supervise,
        env,
        replicas,
        electionNamespace: o.electionNamespace,
      }).catch(async (err: unknown) => {
        supervisor?.stop();
        await cluster?.stop();
        throw err;
      });
      for (const s of services) {
        for (const r of system.replicas.get(s) ?? []) {
          console.log(`${r.process.name.padEnd(20)} gRPC 127.0.0.1:${r.grpc}  health http://127.0.0.1:${r.http}/readyz  log ${runDir}/${r.process.name}.log`);
        }
      }
      if (replicas > 1) console.log(`leader election: Leases lockstep-<service> in namespace ${o.electionNamespace}; every replica serves reads, the leader writes`);
      // The same addresses as the CLI reads them, to paste into another shell.
      const cliServices = services.filter((s): s is ServiceName & CliService => s in SERVICE_PORTS);
      if (cliServices.length) console.log(`point the CLI at them: export ${cliServices.map((s) => `${addressVariable(s)}=${system.grpcAddress(s)}`).join(" ")}`);
      console.log("all services ready; Ctrl-C stops them");
      await new Promise<void>((r) => {
        process.once("SIGINT", () => r());
        process.once("SIGTERM", () => r());
        process.once("SIGHUP", () => r());
      });
      console.log("stopping");
      await system.stop();
      await cluster?.stop();
    });
}

/** A service has a log file in the run folder; a cluster's nats-server does not. */
const isService = (name: string): boolean => (SERVICE_NAMES as readonly string[]).includes(name);

/** The --nats-cluster size, checked against --nats: one NATS or the other, and a size that can elect. */
function natsClusterOption(o: { nats?: string; natsCluster?: string }): number | undefined {
  if (o.natsCluster === undefined) {
    if (o.nats === undefined) throw new CliError(EXIT.USAGE, "--nats <url> is required (or --nats-cluster <n> to start a local NATS cluster)");
    return undefined;
  }
  if (o.nats !== undefined) throw new CliError(EXIT.USAGE, "--nats and --nats-cluster exclude each other: --nats-cluster starts its own NATS servers");
  const parsed = parseNatsClusterSize(o.natsCluster);
  if ("error" in parsed) throw new CliError(EXIT.USAGE, parsed.error);
  return parsed.size;
}
