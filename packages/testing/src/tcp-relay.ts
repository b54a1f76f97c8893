// A TCP relay in front of a server (kube-sim, say) that a test can freeze: the connections stay
// open but no byte is forwarded either way, which is what a hung proxy, a half-dead load balancer
// or a black-holed route looks like to a client (no events, no close, no error). `resume` forwards
// again (what was held back is delivered then); `cut` closes every connection and refuses new ones.
import { connect, createServer, type Server, type Socket } from "node:net";

export interface TcpRelay {
  url: string;
  /** Stop forwarding bytes on every connection, open or new; nothing is closed. */
  freeze(): void;
  /** Forward again, on every connection. */
  resume(): void;
  /** Close every connection and refuse new ones. */
  cut(): void;
  close(): Promise<void>;
}

export async function startTcpRelay(target: string): Promise<TcpRelay> {
  const { hostname, port } = new URL(target);
  const sockets = new Set<Socket>();
  let open = true;
  let frozen = false;
  // Bytes read while frozen are held here, per direction, and written on resume, in order.
  const pending = new Set<{ to: Socket; chunks: Buffer[]; ended: boolean }>();
  const forward = (from: Socket, to: Socket) => {
    const held = { to, chunks: [] as Buffer[], ended: false };
    pending.add(held);
    to.on("close", () => pending.delete(held));
    from.on("data", (chunk: Buffer) => {
      if (frozen || held.chunks.length > 0) held.chunks.push(chunk);
      else to.write(chunk);
    });
    from.on("end", () => (frozen || held.chunks.length > 0 ? (held.ended = true) : to.end()));
  };
  const server: Server = createServer((client) => {
    if (!open) return client.destroy();
    const upstream = connect(Number(port), hostname);
    sockets.add(client).add(upstream);
    forward(client, upstream);
    forward(upstream, client);
    const drop = () => (client.destroy(), upstream.destroy(), sockets.delete(client), sockets.delete(upstream));
    client.on("error", drop).on("close", drop);
    upstream.on("error", drop).on("close", drop);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const addr = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${addr.port}`,
    freeze: () => {
      frozen = true;
    },
    resume: () => {
      frozen = false;
      for (const held of pending) {
        if (!held.to.destroyed) for (const c of held.chunks) held.to.write(c);
        held.chunks = [];
        if (held.ended && !held.to.destroyed) held.to.end();
      }
    },
    cut: () => {
      open = false;
      for (const s of sockets) s.destroy();
    },
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((r) => server.close(() => r()));
    },
  };
}
