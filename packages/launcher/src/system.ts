// Starts the five services as separate processes against a Kubernetes API and a NATS server.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
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
  services?: readonly ServiceName[];
  logLevel?: string;
  /**
   * Restart a service that exits on its own, with backoff, and report it (the demo, `lockstep up`).
   * Off by default: fault tests kill and restart services themselves. Pass a Supervisor to share
   * one with other targets (the demo's nats-server).
   */
  supervise?: SupervisorOptions | Supervisor;
}

export interface RunningSystem {
  processes: Map<ServiceName, ManagedProcess>;
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
  const processes = new Map<ServiceName, ManagedProcess>();
  for (const name of names) {
    const p = ports(name);
    const proc = new ManagedProcess({
      name,
      command: process.execPath,
      args: [serviceEntry(name)],
      logFile: join(o.runDir, `${name}.log`),
      readyUrl: `http://127.0.0.1:${p.http}/readyz`,
      env: {
        SERVICE_NAME: name,
        KUBECONFIG: o.kubeconfig,
        NATS_URL: o.natsUrl,
        GRPC_PORT: String(p.grpc),
        HTTP_PORT: String(p.http),
        LOG_LEVEL: o.logLevel ?? "info",
        ...o.env?.["*"],
        ...o.env?.[name],
      },
    });
    proc.start();
    processes.set(name, proc);
  }
  try {
    await Promise.all([...processes.values()].map((p) => p.waitReady(60_000)));
  } catch (err) {
    await Promise.all([...processes.values()].map((p) => p.stop("SIGKILL")));
    throw err;
  }
  // Supervised only once all are ready: a service that cannot start at all is a start-up error.
  const supervisor = o.supervise instanceof Supervisor ? o.supervise : o.supervise ? new Supervisor(o.supervise) : undefined;
  if (supervisor) for (const p of processes.values()) supervisor.add(p);
  return {
    processes,
    supervisor,
    grpcAddress: (n) => `127.0.0.1:${ports(n).grpc}`,
    httpUrl: (n) => `http://127.0.0.1:${ports(n).http}`,
    stop: async () => {
      supervisor?.stop();
      for (const name of [...names].reverse()) await processes.get(name)?.stop("SIGTERM");
    },
  };
}
