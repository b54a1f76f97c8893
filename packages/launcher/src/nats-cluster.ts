// A local JetStream cluster: `size` nats-servers on loopback, routed to each other, each with its
// own storage, for replicated streams and buckets in tests and the demo. Each server is a
// startNatsServer (same JetStream limits, same guardian clean-up) with a name and a cluster block.
import { jetstreamManager } from "@nats-io/jetstream";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { freePort } from "./ports.js";
import { startNatsServer, type NatsServer, type NatsServerOptions } from "./nats-server.js";

/** The JetStream cluster's name (nats-server `cluster { name }`). */
export const NATS_CLUSTER_NAME = "lockstep";

export interface NatsClusterOptions {
  /** Number of servers: 1, or 3 or more (JetStream needs a majority to elect its meta leader). */
  size: number;
  bin?: NatsServerOptions["bin"];
  /** Milliseconds to wait for every server and then the meta leader. Default 20 s. */
  readyTimeoutMs?: number;
}

/** One server of the cluster: `serverName` is its server_name (n1, n2, …), `name` "nats-server n1". */
export type NatsClusterServer = NatsServer & { readonly serverName: string };

/**
 * The cluster size a `--nats-cluster` flag asks for, or why it cannot be: 1, or 3 or more (two
 * servers lose their JetStream majority when either goes).
 */
export function parseNatsClusterSize(text: string): { size: number } | { error: string } {
  const size = Number(text.trim());
  if (!/^\d+$/.test(text.trim()) || size < 1 || size === 2) return { error: `--nats-cluster must be 1 or at least 3 (two servers lose their JetStream majority when either stops), got ${text}` };
  return { size };
}

/** The replica count (NATS_REPLICAS) for planes on a cluster of `size` servers: up to 3. */
export const natsReplicasFor = (size: number): number => Math.min(size, 3);

export interface NatsCluster {
  /** Every server's client URL, in order. */
  readonly urls: string[];
  readonly servers: readonly NatsClusterServer[];
  /** The server leading stream `name` (undefined while it has no leader). */
  streamLeader(name: string): Promise<NatsClusterServer | undefined>;
  /** Stops every server and deletes its storage. */
  stop(): Promise<void>;
}

export async function startNatsCluster(o: NatsClusterOptions): Promise<NatsCluster> {
  if (!Number.isInteger(o.size) || o.size < 1 || o.size === 2) throw new Error(`a NATS cluster needs 1 or at least 3 servers (got ${o.size})`);
  const timeoutMs = o.readyTimeoutMs ?? 20_000;
  const routePorts: number[] = [];
  for (let i = 0; i < o.size; i++) routePorts.push(await freePort());
  const servers: NatsClusterServer[] = [];
  try {
    for (let i = 0; i < o.size; i++) {
      const serverName = `n${i + 1}`;
      const routes = routePorts.filter((_, j) => j !== i).map((p) => `"nats-route://127.0.0.1:${p}"`);
      // A one-server "cluster" is a plain server with a name: a cluster block with no routes would
      // wait for peers that never come before JetStream is available.
      const cluster = o.size === 1 ? "" : `cluster { name: ${NATS_CLUSTER_NAME}, listen: "127.0.0.1:${routePorts[i]}", routes: [${routes.join(", ")}] }`;
      const srv = await startNatsServer({ bin: o.bin, readyTimeoutMs: timeoutMs, config: [`server_name: ${serverName}`, cluster].join("\n") });
      // A name of its own: the demo's Supervisor tells its targets apart by name.
      servers.push({ ...srv, serverName, name: `nats-server ${serverName}` });
    }
    await waitForMetaLeader(servers.map((s) => s.url), timeoutMs);
  } catch (err) {
    await Promise.all(servers.map((s) => s.stop()));
    throw err;
  }
  const urls = servers.map((s) => s.url);
  return {
    urls,
    servers,
    async streamLeader(name) {
      const nc = await connect({ servers: urls, timeout: 2_000 });
      try {
        const info = await (await jetstreamManager(nc)).streams.info(name);
        return servers.find((s) => s.serverName === info.cluster?.leader);
      } finally {
        await nc.close();
      }
    },
    async stop() {
      await Promise.all(servers.map((s) => s.stop()));
    },
  };
}

/** Until JetStream answers an account-info request, there is no meta leader to create streams. */
async function waitForMetaLeader(urls: string[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let nc: NatsConnection | undefined;
  let last: unknown;
  try {
    nc = await connect({ servers: urls, timeout: 2_000 });
    const jsm = await jetstreamManager(nc, { timeout: 1_000, checkAPI: false });
    while (Date.now() < deadline) {
      try {
        await jsm.getAccountInfo();
        return;
      } catch (err) {
        last = err;
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  } finally {
    await nc?.close();
  }
  throw new Error(`the NATS cluster elected no JetStream meta leader within ${timeoutMs} ms: ${String((last as Error)?.message ?? last)}`);
}
