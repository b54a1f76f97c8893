// A service process, written once: validated config, logger, metrics, readiness, the health and
// metrics endpoint, the gRPC server, and an orderly stop. A service's main.ts says only what is its
// own: its config schema and how its parts are wired (`wire`).
import { busOptionsFromConfig, type BusConnectionOptions } from "@lockstep/bus";
import { FILE_DESCRIPTOR_SET_BASE64 } from "@lockstep/contracts";
import {
  createLogger,
  createMetricsRegistry,
  loadConfigOrExit,
  optimizeHeapForSize,
  Readiness,
  readTlsFiles,
  runMain,
  startGrpcServer,
  startHttpServer,
  stopOnAbort,
  type BaseConfig,
  type GrpcServerHandle,
  type GrpcServerOptions,
  type GrpcServiceEntry,
  type HttpServerHandle,
  type Logger,
  type Runnable,
} from "@lockstep/runtime";
import type { z } from "zod";
import { leaderElection, type LeaderGate } from "./leader.js";

/** How long in-flight gRPC calls get at stop before they are cancelled. */
const GRPC_STOP_GRACE_MS = 2_000;

/** What every service's wiring is handed. */
export interface ServiceContext<C extends BaseConfig> {
  config: C;
  logger: Logger;
  registry: ReturnType<typeof createMetricsRegistry>;
  readiness: Readiness;
  /** NATS connection options from the config; the client name is `lockstep-<service>[-<part>]`. */
  bus(part?: string): BusConnectionOptions;
  /** Which replica writes: work only the leader may do goes through it (leader.ts). */
  leader: LeaderGate;
}

/** A server beside gRPC (an admission webhook): bound once the wiring is done, stopped with the others. */
export interface ServerPart {
  /** Names it in logs and in the stop order. */
  name: string;
  /** Binds and serves; the handle stops it (no new requests, open ones closed). */
  start(): Promise<{ stop(): Promise<void> | void }>;
}

/** What a service runs: its gRPC services, its other servers and its long-running parts. */
export interface ServiceParts {
  grpc?: readonly GrpcServiceEntry[];
  /**
   * Other servers, bound after gRPC in order. At stop they go with gRPC, before `runnables`: what
   * they read (a state view, a coordinator) is still there while they close.
   */
  servers?: readonly ServerPart[];
  /** grpc-js server options (message size limits). */
  grpcChannelOptions?: GrpcServerOptions["channelOptions"];
  /**
   * The service's own parts, started in order. At stop the servers go first (no new requests),
   * then these in reverse order.
   */
  runnables: readonly Runnable[];
}

export interface ServiceSpec<S extends z.ZodType<BaseConfig>> {
  /** The service's name: logs, metrics, the NATS client name. */
  name: string;
  config: S;
  /** Serve gRPC with the GRPC_TLS_* files (default true). The watcher serves health only, in plaintext. */
  grpcTls?: boolean;
  /** Fields every log line of this process carries (e.g. a replica id). */
  logFields?(config: z.output<S>): Record<string, unknown>;
  wire(ctx: ServiceContext<z.output<S>>): ServiceParts | Promise<ServiceParts>;
}

/** A service with its servers bound, not yet running (`runnables` are what runMain runs). */
export interface StartedService<C extends BaseConfig> {
  ctx: ServiceContext<C>;
  http: HttpServerHandle;
  grpc: GrpcServerHandle;
  runnables: Runnable[];
}

/** Everything but the process: wires the service from a parsed config and binds its servers. */
export async function startService<S extends z.ZodType<BaseConfig>>(spec: ServiceSpec<S>, config: z.output<S>): Promise<StartedService<z.output<S>>> {
  const base = createLogger({ service: config.SERVICE_NAME ?? spec.name, level: config.LOG_LEVEL });
  const logger = spec.logFields ? base.child(spec.logFields(config)) : base;
  const registry = createMetricsRegistry({ service: spec.name });
  const readiness = new Readiness();
  const election = leaderElection({ service: spec.name, config, logger, registry });
  const ctx: ServiceContext<z.output<S>> = {
    config,
    logger,
    registry,
    readiness,
    bus: (part) => busOptionsFromConfig(config, `lockstep-${spec.name}${part ? `-${part}` : ""}`),
    leader: election.gate,
  };
  const parts = await spec.wire(ctx);
  const http = await startHttpServer({ port: config.HTTP_PORT, readiness, registry, logger });
  let grpc: GrpcServerHandle;
  try {
    grpc = await startGrpcServer({
      port: config.GRPC_PORT,
      tls: spec.grpcTls === false ? undefined : readTlsFiles(config),
      services: parts.grpc ?? [],
      ...(parts.grpcChannelOptions ? { channelOptions: parts.grpcChannelOptions } : {}),
      ...(config.GRPC_REFLECTION ? { reflection: Buffer.from(FILE_DESCRIPTOR_SET_BASE64, "base64") } : {}),
      logger,
    });
  } catch (err) {
    await http.stop();
    throw err;
  }
  const bound: Array<{ name: string; stop(): Promise<void> | void }> = [];
  try {
    for (const part of parts.servers ?? []) bound.push({ name: part.name, ...(await part.start()) });
  } catch (err) {
    // What was bound is let go, so the ports are free again.
    for (const b of bound.reverse()) await b.stop();
    await grpc.stop(0);
    await http.stop();
    throw err;
  }
  const servers = bound.map((b) => stopOnAbort(b.name, () => b.stop()));
  // The heap mode is said here because runService sets it before any logger exists.
  logger.info({ http: http.port, grpc: grpc.port, servers: servers.map((s) => s.name), v8OptimizeForSize: config.V8_OPTIMIZE_FOR_SIZE }, "service listening");
  // Stopped in reverse: the election first (the leader's work ends and the Lease is released, so a
  // rolling update hands over at once, while this replica still answers reads), then the servers (no
  // new requests; gRPC, then the others in reverse), then the parts that work and those reads used.
  const runnables = [...parts.runnables, ...servers, stopOnAbort("grpc", () => grpc.stop(GRPC_STOP_GRACE_MS)), stopOnAbort("http", () => http.stop()), election.runnable];
  return { ctx, http, grpc, runnables };
}

/** The whole of a service's main: config (exits 2 listing every problem), wiring, servers, run until SIGTERM. */
export async function runService<S extends z.ZodType<BaseConfig>>(spec: ServiceSpec<S>): Promise<never> {
  const config = loadConfigOrExit(spec.config);
  // Before the service allocates its state: the mode governs every full collection from here on.
  if (config.V8_OPTIMIZE_FOR_SIZE) optimizeHeapForSize();
  const { ctx, runnables } = await startService(spec, config);
  return runMain(runnables, { logger: ctx.logger, stopTimeoutMs: config.SHUTDOWN_TIMEOUT });
}
