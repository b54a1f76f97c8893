// A kind that holds nothing delivers nothing to its watch, so nothing in the stream says its initial
// values are in: the watch's consumer says so at its creation (watch-consumer.ts). No further
// question is asked — here a NATS user not allowed any consumer's info, as the chart's permissions
// once were, gets a ready cache at once — and no listing consumer is left on the server.
import { Writable } from "node:stream";
import { jetstreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { encode, NodeState, stateKey } from "@lockstep/contracts";
import { startNatsServer, waitFor, type NatsServer } from "@lockstep/testing";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeBus, connectBus } from "./connection.js";
import { ensureStateBucket } from "./setup.js";
import { StateCache } from "./state-cache.js";

const authorization = `authorization {
  users = [
    { user: "admin", password: "admin" }
    { user: "reader", password: "reader", permissions: {
        publish: { allow: ["$JS.API.INFO", "$JS.API.STREAM.INFO.KV_lockstep-state-v1", "$JS.API.STREAM.CREATE.KV_lockstep-state-v1",
          "$JS.API.CONSUMER.CREATE.KV_lockstep-state-v1.>", "$JS.API.CONSUMER.DELETE.KV_lockstep-state-v1.>", "$JS.FC.KV_lockstep-state-v1.>"] }
        subscribe: { allow: ["_INBOX.>"] } } }
  ]
}`;

let srv: NatsServer;
let admin: NatsConnection;
let reader: NatsConnection;

beforeAll(async () => {
  srv = await startNatsServer({ config: authorization });
  admin = await connectBus({ servers: srv.url, name: "admin", user: "admin", password: "admin" });
  await (await ensureStateBucket(admin)).put(stateKey("node", "n1"), encode(NodeState, NodeState.fromPartial({ name: "n1" })));
  reader = await connectBus({ servers: srv.url, name: "reader", user: "reader", password: "reader" });
});

afterAll(async () => {
  await closeBus(reader);
  await closeBus(admin);
  await srv.stop();
});

describe("state cache, a kind that holds nothing", () => {
  it("is ready from its watches' creation alone, asking nothing else and leaving no consumer behind", async () => {
    const lines: Array<{ msg: string }> = [];
    const sink = new Writable({ write: (chunk, _enc, done) => (lines.push(JSON.parse(String(chunk))), done()) });
    const cache = new StateCache(await ensureStateBucket(reader), { kinds: ["node", "machineSet"], logger: pino({ level: "warn" }, sink) });
    const jsm = await jetstreamManager(admin);
    const consumers = async () => {
      const out: string[] = [];
      for await (const c of jsm.consumers.list("KV_lockstep-state-v1")) out.push(c.config.filter_subject ?? "");
      return out.sort();
    };
    try {
      await cache.start();
      expect(cache.get("node", "n1")).toBeDefined();
      expect(cache.list("machineSet")).toEqual([]);
      expect(lines.map((l) => l.msg)).toEqual([]);
      // One consumer per watched filter (node, machineset, meta, heartbeat), none for a listing.
      expect(await consumers()).toEqual(["heartbeat", "machineset", "meta", "node"].map((k) => `$KV.lockstep-state-v1.${k}.>`));
    } finally {
      cache.stop();
    }
    // Stopped: its watches' consumers are deleted, not left for their 5-minute inactive threshold.
    await waitFor(async () => (await consumers()).length === 0, { what: "no consumer left" });
  }, 30_000);
});
