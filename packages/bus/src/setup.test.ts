// The event stream (and the lease queue bucket) is created by whichever process starts first: many
// at once must all succeed, however nats-server words the losers' refusal, and end with one stream.
import { Writable } from "node:stream";
import { EVENTS_STREAM, EVENT_SUBJECTS, LEASE_QUEUE_BUCKET, STATE_BUCKET } from "@lockstep/contracts";
import { jetstreamManager } from "@nats-io/jetstream";
import { pino } from "pino";
import { startNatsServer, type NatsServer } from "@lockstep/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeBus, connectBus } from "./connection.js";
import { ensureEventStream, ensureLeaseQueueBucket, ensureStateBucket } from "./setup.js";

let srv: NatsServer;

beforeAll(async () => {
  srv = await startNatsServer();
});
afterAll(async () => {
  await srv?.stop();
});

describe("ensureEventStream", () => {
  it("succeeds for every one of many processes creating the stream at once, leaving one stream", async () => {
    const conns = await Promise.all(Array.from({ length: 16 }, (_, i) => connectBus({ servers: srv.url, name: `setup-${i}` })));
    try {
      for (let round = 0; round < 5; round++) {
        const jsms = await Promise.all(conns.map((nc) => ensureEventStream(nc)));
        const info = await jsms[0]!.streams.info(EVENTS_STREAM);
        expect(info.config.subjects).toEqual([EVENT_SUBJECTS]);
        const names: string[] = [];
        for await (const s of jsms[0]!.streams.list()) names.push(s.config.name);
        expect(names.filter((n) => n === EVENTS_STREAM)).toHaveLength(1);
        if (round < 4) await jsms[0]!.streams.delete(EVENTS_STREAM);
      }
    } finally {
      await Promise.all(conns.map((nc) => closeBus(nc)));
    }
  });
});

describe("NATS_REPLICAS on a single server", () => {
  it("refuses replicas 3 for the stream and the bucket with an error naming the setting and the cluster it needs", async () => {
    const nc = await connectBus({ servers: srv.url, name: "setup-r3" });
    try {
      const needs = "NATS_REPLICAS=3 needs a JetStream cluster of at least 3 servers";
      await (await ensureEventStream(nc)).streams.delete(EVENTS_STREAM); // creation, not an update
      await expect(ensureEventStream(nc, { replicas: 3 })).rejects.toThrow(needs);
      await expect(ensureStateBucket(nc, { replicas: 3 })).rejects.toThrow(needs);
    } finally {
      await closeBus(nc);
    }
  });
});

describe("an existing R1 plane that cannot be scaled up", () => {
  // nats-server 2.9 alone would accept the update (and keep one copy under a config saying three).
  it("is kept as it is with a warning naming the setting, and the service starts", async () => {
    const nc = await connectBus({ servers: srv.url, name: "setup-r3-update" });
    try {
      await ensureEventStream(nc);
      await ensureStateBucket(nc);
      const lines: Array<{ msg: string; stream?: string; err?: { message?: string } }> = [];
      const sink = new Writable({ write: (chunk, _enc, done) => (lines.push(JSON.parse(String(chunk))), done()) });
      const logger = pino({ level: "warn" }, sink);
      await ensureEventStream(nc, { replicas: 3, logger });
      const kv = await ensureStateBucket(nc, { replicas: 3, logger });
      expect((await kv.status()).replicas).toBe(1);
      expect((await (await jetstreamManager(nc)).streams.info(EVENTS_STREAM)).config.num_replicas).toBe(1);
      expect(lines.map((l) => [l.msg, l.stream])).toEqual([
        ["stream replica count not changed", EVENTS_STREAM],
        ["stream replica count not changed", `KV_${STATE_BUCKET}`],
      ]);
      expect(lines[0]!.err?.message).toMatch(/^NATS_REPLICAS=3 needs a JetStream cluster of at least 3 servers/);
    } finally {
      await closeBus(nc);
    }
  });
});

describe("ensureLeaseQueueBucket", () => {
  it("is idempotent across processes creating it at once, and keeps one value per waiter for a bounded time", async () => {
    const conns = await Promise.all(Array.from({ length: 4 }, (_, i) => connectBus({ servers: srv.url, name: `queue-setup-${i}` })));
    try {
      const kvs = await Promise.all(conns.map((nc) => ensureLeaseQueueBucket(nc, { maxAgeMs: 120_000 })));
      const status = await kvs[0]!.status();
      expect(status.bucket).toBe(LEASE_QUEUE_BUCKET);
      expect(status.history).toBe(1);
      expect(status.ttl).toBe(120_000);
      expect(status.streamInfo.config.num_replicas).toBe(1);
      // What one process wrote, another reads.
      await kvs[0]!.put("waiter.w1.a", "x");
      expect((await kvs[3]!.get("waiter.w1.a"))?.string()).toBe("x");
    } finally {
      await Promise.all(conns.map((nc) => closeBus(nc)));
    }
  });
});
