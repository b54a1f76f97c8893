// The five Lockstep services as separate processes: what `lockstep up`, the demo and the e2e tests run.
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const SERVICE_NAMES = ["watcher", "lease-coordinator", "skew-enforcer", "bootimage-updater", "status-aggregator"] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

/** Default ports (gRPC, HTTP health/metrics); the CLI's --server defaults agree with these. */
export const DEFAULT_PORTS: Record<ServiceName, { grpc: number; http: number }> = {
  watcher: { grpc: 9090, http: 8090 },
  "lease-coordinator": { grpc: 9091, http: 8091 },
  "skew-enforcer": { grpc: 9092, http: 8092 },
  "bootimage-updater": { grpc: 9093, http: 8093 },
  "status-aggregator": { grpc: 9094, http: 8094 },
};

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

/** Entry point of a built service. */
export function serviceEntry(name: ServiceName): string {
  return join(repoRoot, "services", name, "dist", "main.js");
}
