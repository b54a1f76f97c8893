// Against a real nats-server started for this suite.
import { jetstreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { startNatsServer, type NatsServer } from "@lockstep/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeBus, connectBus } from "./connection.js";
import { JetStreamPublishError, JetStreamPublisher } from "./jetstream-publisher.js";

let srv: NatsServer;
let nc: NatsConnection;
let pub: JetStreamPublisher;

beforeAll(async () => {
  srv = await startNatsServer();
  nc = await connectBus({ servers: srv.url, name: "publisher-test" });
  const jsm = await jetstreamManager(nc);
  await jsm.streams.add({ name: "PUBTEST", subjects: ["pubtest.>"], duplicate_window: 60_000_000_000 });
  pub = new JetStreamPublisher(nc, 300);
});

afterAll(async () => {
  pub.close();
  await closeBus(nc);
  await srv.stop();
});

const bytes = (s: string) => new TextEncoder().encode(s);

describe("JetStreamPublisher", () => {
  it("resolves with the stream's ack, stores the message with its headers, and reports a repeated id as a duplicate", async () => {
    const first = await pub.publish("pubtest.a", bytes("one"), { msgId: "m-1", headers: { "Lockstep-Type": "test.One" } });
    expect(first).toEqual({ stream: "PUBTEST", seq: 1, duplicate: false });
    const again = await pub.publish("pubtest.a", bytes("one"), { msgId: "m-1" });
    expect(again).toEqual({ stream: "PUBTEST", seq: 1, duplicate: true });
    const jsm = await jetstreamManager(nc);
    const stored = await jsm.streams.getMessage("PUBTEST", { seq: 1 });
    expect(stored!.string()).toBe("one");
    expect(stored!.header.get("Lockstep-Type")).toBe("test.One");
    expect(stored!.header.get("Nats-Msg-Id")).toBe("m-1");
  });

  it("matches many concurrent acks to their publishes", async () => {
    const acks = await Promise.all(Array.from({ length: 500 }, (_, i) => pub.publish(`pubtest.many.${i}`, bytes(String(i)), { msgId: `many-${i}` })));
    const jsm = await jetstreamManager(nc);
    for (const i of [0, 137, 499]) {
      const m = await jsm.streams.getMessage("PUBTEST", { seq: acks[i]!.seq });
      expect(m!.string()).toBe(String(i));
    }
    expect(new Set(acks.map((a) => a.seq)).size).toBe(500);
    expect(pub.inFlight).toBe(0);
  });

  it("rejects with no-stream when no stream takes the subject", async () => {
    const err = await pub.publish("nostream.x", bytes("x")).catch((e) => e);
    expect(err).toBeInstanceOf(JetStreamPublishError);
    expect(err).toMatchObject({ kind: "no-stream", subject: "nostream.x" });
  });

  it("rejects with JetStream's error code when the stream refuses", async () => {
    const err = await pub.publish("pubtest.b", bytes("x"), { headers: { "Nats-Expected-Last-Sequence": "999999" } }).catch((e) => e);
    expect(err).toMatchObject({ kind: "rejected", errCode: 10071 });
    expect(err.message).toMatch(/JetStream refused the publish to pubtest\.b: wrong last sequence/);
  });

  it("times out when something answers nothing", async () => {
    const silent = nc.subscribe("silent.x"); // a responder that never replies: no 503 from the server
    try {
      const err = await pub.publish("silent.x", bytes("x")).catch((e) => e);
      expect(err).toMatchObject({ kind: "timeout", message: "no ack for silent.x within 300 ms" });
      expect(pub.inFlight).toBe(0);
    } finally {
      silent.unsubscribe();
    }
  });

  it("refuses to publish once closed, and rejects what was still waiting", async () => {
    const own = new JetStreamPublisher(nc, 60_000);
    const silent = nc.subscribe("silent.y");
    const waiting = own.publish("silent.y", bytes("x")).catch((e) => e);
    await nc.flush();
    own.close();
    silent.unsubscribe();
    expect(await waiting).toMatchObject({ kind: "closed" });
    expect(await own.publish("pubtest.c", bytes("x")).catch((e) => e)).toMatchObject({ kind: "closed" });
  });
});
