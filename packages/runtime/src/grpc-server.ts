/**
 * gRPC server with the standard `grpc.health.v1.Health` service added, plaintext or TLS
 * (optionally mutual TLS).
 */
import { readFileSync } from "node:fs";
import * as grpc from "@grpc/grpc-js";
import { loadFileDescriptorSetFromBuffer } from "@grpc/proto-loader";
import { ReflectionService } from "@grpc/reflection";
import { HealthImplementation } from "grpc-health-check";
import type { Logger } from "pino";
import { silentLogger } from "./logger.js";

/** PEM contents (not file paths; see {@link readTlsFiles}). */
export interface GrpcTlsOptions {
  cert: Buffer | string;
  key: Buffer | string;
  /** CAs trusted for client certificates. */
  ca?: Buffer | string;
  /** Refuse clients without a certificate signed by `ca`. */
  requireClientCert?: boolean;
}

/** A service definition (ts-proto `XxxService`) and its implementation. */
export type GrpcServiceEntry = readonly [grpc.ServiceDefinition<any>, grpc.UntypedServiceImplementation | object];

/** Options for {@link startGrpcServer}. */
export interface GrpcServerOptions {
  /** 0 picks a free port. */
  port: number;
  /** Default "0.0.0.0". */
  host?: string;
  services: readonly GrpcServiceEntry[];
  tls?: GrpcTlsOptions;
  /** Health status of every service (and of "") at start. Default true (SERVING). */
  initiallyServing?: boolean;
  /** Passed to grpc-js, e.g. { "grpc.max_receive_message_length": ... }. */
  channelOptions?: grpc.ServerOptions;
  logger?: Logger;
  /**
   * A serialized FileDescriptorSet holding the registered services' protos: with it the server also
   * answers gRPC server reflection (v1 and v1alpha), listing the services it serves, so generic
   * clients (grpcurl, grpcui, Postman) call it without the .proto files.
   */
  reflection?: Uint8Array;
}

/** A running gRPC server. */
export interface GrpcServerHandle {
  server: grpc.Server;
  /** The bound port (useful with port 0). */
  port: number;
  /** Fully qualified names of the registered services, e.g. "lockstep.lease.v1.LeaseService". */
  serviceNames: string[];
  /** Sets the health status of one service; "" is the whole server. */
  setServing(service: string, serving: boolean): void;
  /** Sets the health status of "" and every registered service. */
  setAllServing(serving: boolean): void;
  /**
   * Reports NOT_SERVING, lets in-flight calls finish for up to `graceMs` (default 5 s), then
   * cancels whatever is left.
   */
  stop(graceMs?: number): Promise<void>;
}

/** The fully qualified service name of a definition, taken from its first method path. */
export function grpcServiceName(definition: grpc.ServiceDefinition<any>): string {
  const first = Object.values(definition)[0] as { path?: string } | undefined;
  const match = /^\/(.+)\/[^/]+$/.exec(first?.path ?? "");
  if (!match) throw new Error("gRPC service definition has no methods");
  return match[1]!;
}

/** Builds server credentials; plaintext when `tls` is undefined. */
export function serverCredentials(tls?: GrpcTlsOptions): grpc.ServerCredentials {
  if (!tls) return grpc.ServerCredentials.createInsecure();
  if (tls.requireClientCert && !tls.ca) throw new Error("requireClientCert needs a CA to verify clients against");
  return grpc.ServerCredentials.createSsl(
    tls.ca ? Buffer.from(tls.ca) : null,
    [{ cert_chain: Buffer.from(tls.cert), private_key: Buffer.from(tls.key) }],
    tls.requireClientCert ?? false,
  );
}

/**
 * Reads TLS PEM files named by the base config (GRPC_TLS_CERT/KEY/CA, GRPC_TLS_REQUIRE_CLIENT_CERT).
 * Returns undefined when no certificate is configured; throws an error naming the variable when
 * a file cannot be read.
 */
export function readTlsFiles(config: {
  GRPC_TLS_CERT?: string | undefined;
  GRPC_TLS_KEY?: string | undefined;
  GRPC_TLS_CA?: string | undefined;
  GRPC_TLS_REQUIRE_CLIENT_CERT?: boolean | undefined;
}): GrpcTlsOptions | undefined {
  if (!config.GRPC_TLS_CERT || !config.GRPC_TLS_KEY) return undefined;
  const read = (name: string, path: string) => {
    try {
      return readFileSync(path);
    } catch (err) {
      throw new Error(`${name}: cannot read ${path}: ${(err as Error).message}`);
    }
  };
  return {
    cert: read("GRPC_TLS_CERT", config.GRPC_TLS_CERT),
    key: read("GRPC_TLS_KEY", config.GRPC_TLS_KEY),
    ca: config.GRPC_TLS_CA ? read("GRPC_TLS_CA", config.GRPC_TLS_CA) : undefined,
    requireClientCert: config.GRPC_TLS_REQUIRE_CLIENT_CERT ?? false,
  };
}

/** Starts a gRPC server with the health service and resolves once it is bound. */
export async function startGrpcServer(options: GrpcServerOptions): Promise<GrpcServerHandle> {
  const logger = options.logger ?? silentLogger();
  // Channelz (grpc-js' per-call introspection, on by default) tracks every call and nothing reads
  // it; a caller can still turn it on through channelOptions.
  const server = new grpc.Server({ "grpc.enable_channelz": 0, ...options.channelOptions });
  const serviceNames: string[] = [];
  for (const [definition, impl] of options.services) {
    server.addService(definition, impl as grpc.UntypedServiceImplementation);
    serviceNames.push(grpcServiceName(definition));
  }
  if (options.reflection) {
    const definitions = loadFileDescriptorSetFromBuffer(Buffer.from(options.reflection), { keepCase: true, longs: String, enums: String, defaults: true, oneofs: true });
    new ReflectionService(definitions, { services: serviceNames }).addToServer(server);
  }
  const initial = (options.initiallyServing ?? true) ? "SERVING" : "NOT_SERVING";
  const health = new HealthImplementation(Object.fromEntries(["", ...serviceNames].map((n) => [n, initial])));
  // grpc-health-check types its own minimal Server interface; grpc-js's Server satisfies it.
  health.addToServer(server as unknown as Parameters<HealthImplementation["addToServer"]>[0]);

  const host = options.host ?? "0.0.0.0";
  const address = host.includes(":") ? `[${host}]:${options.port}` : `${host}:${options.port}`;
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(address, serverCredentials(options.tls), (err, boundPort) => (err ? reject(err) : resolve(boundPort)));
  });
  logger.info({ host, port, services: serviceNames, tls: Boolean(options.tls) }, "grpc server listening");

  const setServing = (service: string, serving: boolean) => health.setStatus(service, serving ? "SERVING" : "NOT_SERVING");
  const setAllServing = (serving: boolean) => {
    for (const name of ["", ...serviceNames]) setServing(name, serving);
  };

  return {
    server,
    port,
    serviceNames,
    setServing,
    setAllServing,
    stop: async (graceMs = 5000) => {
      setAllServing(false);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          logger.warn({ graceMs }, "grpc graceful shutdown timed out, cancelling calls");
          server.forceShutdown();
          resolve();
        }, graceMs);
        server.tryShutdown(() => {
          clearTimeout(timer);
          resolve();
        });
      });
      logger.info("grpc server stopped");
    },
  };
}
