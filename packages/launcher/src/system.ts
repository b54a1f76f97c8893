// Starts the five services as separate processes against a Kubernetes API and a NATS server.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { ManagedProcess } from "./process.js";
import { DEFAULT_PORTS, SERVICE_NAMES, serviceEntry, type ServiceName } from "./services.js";

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
}

export interface RunningSystem {
  processes: Map<ServiceName, ManagedProcess>;
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
  return {
    processes,
    grpcAddress: (n) => `127.0.0.1:${ports(n).grpc}`,
    httpUrl: (n) => `http://127.0.0.1:${ports(n).http}`,
    stop: async () => {
      for (const name of [...names].reverse()) await processes.get(name)?.stop("SIGTERM");
    },
  };
}
