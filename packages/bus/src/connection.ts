// The NATS connection every service uses: reconnects forever once connected, drains on stop, and
// turns a refused first connection into one clear error instead of a hang.
import { readFileSync } from "node:fs";
import {
  connect,
  credsAuthenticator,
  nkeyAuthenticator,
  tokenAuthenticator,
  usernamePasswordAuthenticator,
  type Authenticator,
  type NatsConnection,
} from "@nats-io/transport-node";

export interface BusConnectionOptions {
  servers: string | string[];
  /** Connection name shown by the server (the service name). */
  name?: string;
  user?: string;
  password?: string;
  token?: string;
  /** NKey seed text (starts with "SU"). */
  nkeySeed?: string;
  /** Path to a .creds file (JWT + seed). */
  credsFile?: string;
  tls?: { caFile?: string; certFile?: string; keyFile?: string };
  /** Milliseconds for the first connection attempt. */
  timeoutMs?: number;
  /**
   * JetStream replicas of the planes ensured on this connection (NATS_REPLICAS). Not a connection
   * setting, but it travels with the connection options to every place that ensures the planes.
   */
  replicas?: number;
}

export class BusConnectError extends Error {
  constructor(servers: string | string[], cause: unknown) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(`cannot connect to NATS at ${[servers].flat().join(",")}: ${reason}`, { cause });
    this.name = "BusConnectError";
  }
}

function authenticators(o: BusConnectionOptions): Authenticator[] {
  const out: Authenticator[] = [];
  if (o.user !== undefined) out.push(usernamePasswordAuthenticator(o.user, o.password ?? ""));
  if (o.token !== undefined) out.push(tokenAuthenticator(o.token));
  if (o.nkeySeed !== undefined) out.push(nkeyAuthenticator(new TextEncoder().encode(o.nkeySeed.trim())));
  if (o.credsFile !== undefined) out.push(credsAuthenticator(readFileSync(o.credsFile)));
  return out;
}

export async function connectBus(o: BusConnectionOptions): Promise<NatsConnection> {
  const auth = authenticators(o);
  try {
    return await connect({
      servers: o.servers,
      name: o.name,
      timeout: o.timeoutMs ?? 5_000,
      // Once up, never give up: a service outlives any nats-server restart.
      maxReconnectAttempts: -1,
      reconnectTimeWait: 250,
      // A server that stops answering without closing its sockets (frozen, or its node lost power:
      // no RST) is left after two unanswered pings, 4-6 s, not nats.js's 2 min x 2: until then
      // every publish, put and watch of this service waits on it, and the view goes stale.
      pingInterval: 2_000,
      maxPingOut: 2,
      waitOnFirstConnect: false,
      // Every JetStream publish is a request; with async traces on, each one builds an Error with a
      // stack up front just in case it fails (about a third of a publish's CPU). Failures are
      // classified by their message and logged with the caller's context, so the trace is not needed.
      noAsyncTraces: true,
      authenticator: auth.length > 0 ? auth : undefined,
      tls: o.tls ? { caFile: o.tls.caFile, certFile: o.tls.certFile, keyFile: o.tls.keyFile } : undefined,
    });
  } catch (err) {
    throw new BusConnectError(o.servers, err);
  }
}

/** Drains subscriptions and closes; safe to call twice. */
export async function closeBus(nc: NatsConnection): Promise<void> {
  if (nc.isClosed()) return;
  try {
    await nc.drain();
  } catch {
    await nc.close().catch(() => {});
  }
}

/** The NATS settings every service reads (packages/runtime's base config), as connection options. */
export interface NatsEnvConfig {
  NATS_URL: string[];
  NATS_USER?: string;
  NATS_PASSWORD?: string;
  NATS_TOKEN?: string;
  NATS_CREDS_FILE?: string;
  NATS_REPLICAS?: number;
}

export function busOptionsFromConfig(config: NatsEnvConfig, name: string): BusConnectionOptions {
  return {
    servers: config.NATS_URL,
    name,
    user: config.NATS_USER,
    password: config.NATS_PASSWORD,
    token: config.NATS_TOKEN,
    credsFile: config.NATS_CREDS_FILE,
    replicas: config.NATS_REPLICAS,
  };
}
