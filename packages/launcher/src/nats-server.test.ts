import { connect } from "@nats-io/transport-node";
import { afterAll, describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startNatsServer, type NatsServer } from "./nats-server.js";

describe("startNatsServer", () => {
  let srv: NatsServer;
  afterAll(async () => srv?.stop());

  it("starts a JetStream server on a free port, survives kill and restart, and cleans up", async () => {
    srv = await startNatsServer();
    const nc = await connect({ servers: srv.url });
    expect(nc.info?.jetstream).toBe(true);
    await nc.close();

    await srv.kill();
    await expect(connect({ servers: srv.url, reconnect: false, timeout: 500 })).rejects.toThrow();

    await srv.restart();
    const again = await connect({ servers: srv.url });
    await again.close();

    const dir = srv.storeDir;
    await srv.stop();
    expect(existsSync(dir)).toBe(false);
  });

  it("kill and stop resolve for a server that already died of a signal, and report the crash", async () => {
    const s = await startNatsServer();
    const crashes: Array<string | null> = [];
    s.onUnexpectedExit((_code, signal) => crashes.push(signal));
    const pid = s.pid()!;
    const exited = new Promise<void>((r) => {
      const t = setInterval(() => {
        try {
          process.kill(pid, 0);
        } catch {
          clearInterval(t);
          r();
        }
      }, 20);
    });
    process.kill(pid, "SIGKILL"); // a crash from outside: exitCode stays null, signalCode is set
    await exited;
    await new Promise((r) => setTimeout(r, 100));
    expect(crashes).toEqual(["SIGKILL"]);
    const t0 = Date.now();
    await s.kill();
    await s.kill(); // twice: nothing left to wait for
    const dir = s.storeDir;
    await s.stop();
    expect(Date.now() - t0).toBeLessThan(2_000);
    expect(existsSync(dir)).toBe(false);
  });

  it("restarts after a crash on the same port, and kill() is not reported as a crash", async () => {
    const s = await startNatsServer();
    const crashes: Array<string | null> = [];
    s.onUnexpectedExit((_code, signal) => crashes.push(signal));
    process.kill(s.pid()!, "SIGTERM");
    await new Promise((r) => setTimeout(r, 300));
    await s.restart();
    const nc = await connect({ servers: s.url });
    await nc.close();
    await s.kill();
    await s.stop();
    expect(crashes).toHaveLength(1);
  });

  it("reports a missing binary clearly", async () => {
    // A private TMPDIR, so that other suites' servers do not count.
    const tmp = mkdtempSync(join(tmpdir(), "lockstep-nats-test-"));
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = tmp;
    try {
      await expect(startNatsServer({ bin: "/nonexistent/nats-server" })).rejects.toThrow(/cannot start nats-server/);
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
    }
    expect(readdirSync(tmp)).toEqual([]); // no folder left behind
    rmSync(tmp, { recursive: true });
  });
});
