// Where each service's gRPC API is: --server, else one environment variable per service named
// LOCKSTEP_<SERVICE>_ADDR after the service, else its default port on localhost. The answer says
// where the address came from, so "cannot reach" can say how to point the CLI elsewhere.
import { CliError, EXIT } from "./exit-codes.js";

export const SERVICE_PORTS = {
  "lease-coordinator": 9091,
  "skew-enforcer": 9092,
  "bootimage-updater": 9093,
  "status-aggregator": 9094,
} as const;
export type CliService = keyof typeof SERVICE_PORTS;

/** Names read before there was one per service; set, they are an error that names the right one. */
const RENAMED: Readonly<Record<string, CliService>> = { LOCKSTEP_LEASE_ADDR: "lease-coordinator" };

export function addressVariable(service: CliService): string {
  return `LOCKSTEP_${service.toUpperCase().replace(/-/g, "_")}_ADDR`;
}

export function defaultAddress(service: CliService): string {
  return `127.0.0.1:${SERVICE_PORTS[service]}`;
}

export interface ServerAddress {
  service: CliService;
  address: string;
  /** "--server", the variable's name, or "default". */
  from: string;
}

export function serverAddress(service: CliService, flag: string | undefined, env: NodeJS.ProcessEnv = process.env): ServerAddress {
  for (const [old, s] of Object.entries(RENAMED)) {
    if (s === service && env[old] !== undefined && env[addressVariable(service)] === undefined && !flag)
      throw new CliError(EXIT.USAGE, `${old} is no longer read: set ${addressVariable(service)} instead (one variable per service, LOCKSTEP_<SERVICE>_ADDR)`);
  }
  if (flag) return { service, address: flag, from: "--server" };
  const variable = addressVariable(service);
  const fromEnv = env[variable];
  if (fromEnv) return { service, address: fromEnv, from: variable };
  return { service, address: defaultAddress(service), from: "default" };
}

/** How to point the CLI at the service, for "cannot reach": what was used and what to change. */
export function addressHint(a: ServerAddress): string {
  const variable = addressVariable(a.service);
  if (a.from === "--server") return `(from --server; is the ${a.service} running there?)`;
  if (a.from === variable) return `(from $${variable}; pass --server ADDR or fix the variable)`;
  return `(the default; pass --server ADDR or set ${variable})`;
}

/** The --server option's help text. */
export function serverHelp(service: CliService): string {
  return `${service} gRPC address (default $${addressVariable(service)} or ${defaultAddress(service)})`;
}
