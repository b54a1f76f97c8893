// Ports for the processes a test or the demo starts. A port picked by binding port 0 comes from the
// kernel's ephemeral range, the same range every outgoing connection draws its local port from, so
// between picking it and the service binding it a client socket can take it (EADDRINUSE, a service
// that "exited before it was ready"). Ports below that range are only ever taken by someone who
// asks for them by number.
import { readFileSync } from "node:fs";
import { createServer } from "node:net";

const FALLBACK_EPHEMERAL_START = 32768;
const LOWEST = 20000;
const handedOut = new Set<number>();

/** First port of the kernel's ephemeral range (Linux), or the usual default elsewhere. */
export function ephemeralRangeStart(procFile = "/proc/sys/net/ipv4/ip_local_port_range"): number {
  try {
    const first = Number(readFileSync(procFile, "utf8").trim().split(/\s+/)[0]);
    return Number.isInteger(first) && first > 1024 ? first : FALLBACK_EPHEMERAL_START;
  } catch {
    return FALLBACK_EPHEMERAL_START;
  }
}

function canBind(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.unref();
    srv.once("error", () => resolve(false));
    srv.listen({ port, host: "127.0.0.1", exclusive: true }, () => srv.close(() => resolve(true)));
  });
}

function bindZero(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      const port = typeof addr === "object" && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * A TCP port on 127.0.0.1 that is free now, outside the ephemeral range and not handed out before
 * by this process. Random, so concurrent test processes rarely try the same one.
 */
export async function freePort(): Promise<number> {
  const top = ephemeralRangeStart() - 1;
  const span = top - LOWEST + 1;
  if (span > 100) {
    for (let attempt = 0; attempt < 200; attempt++) {
      const port = LOWEST + Math.floor(Math.random() * span);
      if (handedOut.has(port)) continue;
      if (await canBind(port)) {
        handedOut.add(port);
        return port;
      }
    }
  }
  // No room below the ephemeral range (an unusual kernel setting): let the kernel pick.
  const port = await bindZero();
  handedOut.add(port);
  return port;
}

/**
 * Whether a start failed because a port picked for it was taken before it bound it (another process
 * on the machine picked the same one: parallel test suites do). The caller may start again on new ports.
 */
export function portTaken(err: unknown): boolean {
  return /EADDRINUSE|address already in use/.test(err instanceof Error ? err.message : String(err));
}
