import { connect } from "@nats-io/transport-node";
import { afterAll, describe, expect, it } from "vitest";
import { existsSync } from "node:fs";
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

  it("reports a missing binary clearly", async () => {
    await expect(startNatsServer({ bin: "/nonexistent/nats-server" })).rejects.toThrow(/cannot start nats-server/);
  });
});
