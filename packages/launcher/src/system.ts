// Starts the five services as separate processes against a Kubernetes API and a NATS server: one
// each, or several replicas each (leader election on, as the chart runs them).
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { freePort } from "./ports.js";
import { ManagedProcess } from "./process.js";
import { DEFAULT_PORTS, SERVICE_NAMES, serviceEntry, type ServiceName } from "./services.js";
import { Supervisor, type SupervisorOptions } from "./supervisor.js";

export interface SystemOptions {
  kubeconfig: string;
  natsUrl: string;
  /** Folder for logs (one file per service). */
  runDir: string;
  /** Ports per service; defaults to DEFAULT_PORTS. */
  ports?: Partial<Record<ServiceName, { grpc: number; http: number }>>;
  /** Extra environment per service (or for all, under "*"). */
  env?: Partial<Record<ServiceName | "*", Record<string, string>>>;
  /** Extra environment of one replica (index 0 is the first), over `env`. */
  replicaEnv?(service: ServiceName, index: number): Record<string, string> | undefined;
  services?: readonly ServiceName[];
  logLevel?: string;
  /**
   * Restart a service that exits on its own, with backoff, and report it (the demo, `lockstep up`).
   * Off by default: fault tests kill and restart services themselves. Pass a Supervisor to share
   * one with other targets (the demo's nats-server).
   */
  supervise?: SupervisorOptions | Supervisor;
  /**
   * Processes per service (default 1). With more than one, each replica gets its own ports (the
   * first keeps `ports`) and leader election is on (LEADER_ELECTION_NAMESPACE must exist); with one,
   * election is off unless `env` turns it on, so a restarted service writes at once.
   */
  replicas?: number;
  /** Namespace of the election Leases (default lockstep-system). */
  electionNamespace?: string;
}

/** One process of a service. */
export interface Replica {
  service: ServiceName;
  /** 0 for the first; its process is named after the service, the others `<service>-<n+1>`. */
  index: number;
  process: ManagedProcess;
  grpc: number;
  http: number;
}

export interface RunningSystem {
  /** The first replica of each service. */
  processes: Map<ServiceName, ManagedProcess>;
  /** Every replica of each service, in order. */
  replicas: Map<ServiceName, Replica[]>;
  /** Present when started with `supervise`. */
  supervisor: Supervisor | undefined;
  grpcAddress(name: ServiceName): string;
  httpUrl(name: ServiceName): string;
  stop(): Promise<void>;
}

export async function startSystem(o: SystemOptions): Promise<RunningSystem> {
  mkdirSync(o.runDir, { recursive: true });
  const names = o.services ?? SERVICE_NAMES;
  const ports = (n: ServiceName) => o.ports?.[n] ?? DEFAULT_PORTS[n];
  const count = Math.max(1, Math.floor(o.replicas ?? 1));
  const processes = new Map<ServiceName, ManagedProcess>();
  const replicas = new Map<ServiceName, Replica[]>();
  const all: ManagedProcess[] = [];
  const election: Record<string, string> =
    count > 1 ? { LEADER_ELECTION: "true", LEADER_ELECTION_NAMESPACE: o.electionNamespace ?? "lockstep-system" } : { LEADER_ELECTION: "false" };
  for (const name of names) {
    const list: Replica[] = [];
    for (let i = 0; i < count; i++) {
      const p = i === 0 ? ports(name) : { grpc: await freePort(), http: await freePort() };
      const procName = i === 0 ? name : `${name}-${i + 1}`;
      const proc = new ManagedProcess({
        name: procName,
        command: process.execPath,
        args: [serviceEntry(name)],
        logFile: join(o.runDir, `${procName}.log`),
        readyUrl: `http://127.0.0.1:${p.http}/readyz`,
        env: {
          SERVICE_NAME: name,
          KUBECONFIG: o.kubeconfig,
          NATS_URL: o.natsUrl,
          GRPC_PORT: String(p.grpc),
          HTTP_PORT: String(p.http),
          LOG_LEVEL: o.logLevel ?? "info",
          POD_NAME: procName,
          ...election,
          ...o.env?.["*"],
          ...o.env?.[name],
          // Per replica (e.g. each lease-coordinator's own webhook port).
          ...o.replicaEnv?.(name, i),
        },
      });
      proc.start();
      list.push({ service: name, index: i, process: proc, grpc: p.grpc, http: p.http });
      all.push(proc);
    }
    processes.set(name, list[0]!.process);
    replicas.set(name, list);
  }
  try {
    await Promise.all(all.map((p) => p.waitReady(60_000)));
  } catch (err) {
    await Promise.all(all.map((p) => p.stop("SIGKILL")));
    throw err;
  }
  // Supervised only once all are ready: a service that cannot start at all is a start-up error.
  const supervisor = o.supervise instanceof Supervisor ? o.supervise : o.supervise ? new Supervisor(o.supervise) : undefined;
  if (supervisor) for (const p of all) supervisor.add(p);
  return {
    processes,
    replicas,
    supervisor,
    grpcAddress: (n) => `127.0.0.1:${ports(n).grpc}`,
    httpUrl: (n) => `http://127.0.0.1:${ports(n).http}`,
    stop: async () => {
      supervisor?.stop();
      for (const name of [...names].reverse()) await Promise.all((replicas.get(name) ?? []).map((r) => r.process.stop("SIGTERM")));
    },
  };
}
