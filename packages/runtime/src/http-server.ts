/**
 * The operational HTTP endpoint of every service:
 * - `/healthz` liveness: 200 while the process serves HTTP at all;
 * - `/readyz` readiness: 200 when every readiness check passes, else 503 with a JSON body naming
 *   the failing checks;
 * - `/metrics` the Prometheus text exposition of the registry.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "pino";
import type { Registry } from "prom-client";
import { silentLogger } from "./logger.js";
import { Readiness } from "./readiness.js";

/** Options for {@link startHttpServer}. */
export interface HttpServerOptions {
  /** 0 picks a free port. */
  port: number;
  /** Default "0.0.0.0". */
  host?: string;
  readiness?: Readiness;
  registry?: Registry;
  logger?: Logger;
}

/** A running HTTP server. */
export interface HttpServerHandle {
  server: Server;
  /** The bound port (useful with port 0). */
  port: number;
  host: string;
  /** Base URL, e.g. "http://127.0.0.1:41234". */
  url: string;
  readiness: Readiness;
  /** Stops accepting connections and closes open ones. */
  stop(): Promise<void>;
}

/** Starts the health/readiness/metrics server and resolves once it listens. */
export async function startHttpServer(options: HttpServerOptions): Promise<HttpServerHandle> {
  const logger = options.logger ?? silentLogger();
  const readiness = options.readiness ?? new Readiness();
  const registry = options.registry;
  const host = options.host ?? "0.0.0.0";

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? "/").split("?")[0];
    if (req.method !== "GET" && req.method !== "HEAD") {
      return send(res, 405, "text/plain", "method not allowed\n");
    }
    switch (path) {
      case "/healthz":
        return send(res, 200, "text/plain", "ok\n");
      case "/readyz": {
        const { ready, checks } = await readiness.evaluate();
        const failing = checks.filter((c) => !c.ok).map(({ name, reason }) => ({ name, reason }));
        return send(res, ready ? 200 : 503, "application/json", JSON.stringify({ ready, failing }) + "\n");
      }
      case "/metrics":
        if (!registry) return send(res, 404, "text/plain", "no metrics registry\n");
        return send(res, 200, registry.contentType, await registry.metrics());
      default:
        return send(res, 404, "text/plain", "not found\n");
    }
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      logger.error({ err, url: req.url }, "http request failed");
      if (!res.headersSent) send(res, 500, "text/plain", "internal error\n");
      else res.destroy();
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host.includes(":") ? `[${host}]` : host;
  logger.info({ host, port }, "http server listening");

  return {
    server,
    port,
    host,
    url: `http://${urlHost}:${port}`,
    readiness,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Keep-alive connections would hold close() open until their idle timeout.
        server.closeAllConnections();
      }),
  };
}

function send(res: ServerResponse, status: number, contentType: string, body: string): void {
  res.writeHead(status, { "content-type": contentType, "cache-control": "no-store" });
  res.end(body);
}
