// Integration tests against a real nats-server started for this suite.
import { jetstream } from "@nats-io/jetstream";
import type { KV } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/transport-node";
import { Events, NodeState, PoolState, stateKey, StateKinds, encode, type DecodedEvent } from "@lockstep/contracts";
import { startNatsServer, waitFor, type NatsServer } from "@lockstep/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BusConnectError, closeBus, connectBus } from "./connection.js";
import { consumeEvents } from "./consume.js";
import { JetStreamPublisher } from "./jetstream-publisher.js";
import { EventPublisher } from "./publish.js";
import { ensureEventStream, ensureStateBucket } from "./setup.js";
import { StateCache, type StateChange } from "./state-cache.js";
import { StateWriter } from "./state-writer.js";

let srv: NatsServer;
let nc: NatsConnection;
let kv: KV;

beforeAll(async () => {
  srv = await startNatsServer();
  nc = await connectBus({ servers: srv.url, name: "bus-test" });
  await ensureEventStream(nc);
  await ensureEventStream(nc); // idempotent
  kv = await ensureStateBucket(nc);
  await ensureStateBucket(nc);
});

afterAll(async () => {
  await closeBus(nc);
  await srv.stop();
});

const node = (name: string, unschedulable = false) => NodeState.fromPartial({ name, unschedulable, roles: ["worker"] });

describe("connection", () => {
  it("fails fast with the server and reason when nothing listens", async () => {
    const err = await connectBus({ servers: "nats://127.0.0.1:1", timeoutMs: 1000 }).catch((e) => e);
    expect(err).toBeInstanceOf(BusConnectError);
    expect(err.message).toMatch(/cannot connect to NATS at nats:\/\/127\.0\.0\.1:1: /);
  });
});

describe("events", () => {
  it("round-trips a typed event through the stream and de-duplicates by id", async () => {
    const pub = new EventPublisher(nc, "test");
    const msg = Events.updateCompleted.codec.fromPartial({ version: "4.16.3", pools: ["master", "worker"], nodes: 6 });
    const a = await pub.publish(Events.updateCompleted, msg, { id: "evt-1" });
    const b = await pub.publish(Events.updateCompleted, msg, { id: "evt-1" });
    expect(a.duplicate).toBe(false);
    expect(b.duplicate).toBe(true);

    const got: DecodedEvent[] = [];
    const ac = new AbortController();
    const done = consumeEvents(nc, {
      durable: "roundtrip",
      filterSubject: Events.updateCompleted.subject,
      signal: ac.signal,
      handler: (e) => void got.push(e),
    });
    await waitFor(() => got.length >= 1);
    ac.abort();
    await done;
    expect(got).toHaveLength(1);
    expect(got[0]!.type).toBe(Events.updateCompleted);
    expect(got[0]!.message).toMatchObject({ version: "4.16.3", pools: ["master", "worker"], nodes: 6, meta: { id: "evt-1", source: "test" } });
  });

  it("a consumer restarted from its durable position misses nothing and repeats nothing", async () => {
    const pub = new EventPublisher(nc, "test");
    const seen: string[] = [];
    const run = (ac: AbortController) =>
      consumeEvents(nc, {
        durable: "restart",
        filterSubject: Events.leaseReleased.subject,
        signal: ac.signal,
        handler: (e) => void seen.push((e.message as { meta: { id: string } }).meta.id),
      });
    const publishRange = async (from: number, to: number) => {
      for (let i = from; i < to; i++) await pub.publish(Events.leaseReleased, Events.leaseReleased.codec.fromPartial({ lease: { node: `n${i}` } }), { id: `rel-${i}` });
    };
    const first = new AbortController();
    const p1 = run(first);
    await publishRange(0, 50);
    await waitFor(() => seen.length === 50);
    first.abort();
    await p1;
    await publishRange(50, 100); // published while no consumer runs
    const second = new AbortController();
    const p2 = run(second);
    await waitFor(() => seen.length === 100);
    second.abort();
    await p2;
    expect(seen).toEqual(Array.from({ length: 100 }, (_, i) => `rel-${i}`));
  });

  it("terminates a malformed event instead of crashing or redelivering it", async () => {
    const js = jetstream(nc);
    await js.publish(Events.warningRaised.subject, new Uint8Array([1, 2, 3]), { msgID: "bad-1" }); // no type header
    const pub = new EventPublisher(nc, "test");
    await pub.publish(Events.warningRaised, Events.warningRaised.codec.fromPartial({ warning: { code: "X" } }), { id: "good-1" });
    const got: string[] = [];
    const ac = new AbortController();
    const p = consumeEvents(nc, { durable: "malformed", filterSubject: Events.warningRaised.subject, signal: ac.signal, handler: (e) => void got.push((e.message as { meta: { id: string } }).meta.id) });
    await waitFor(() => got.length === 1);
    ac.abort();
    await p;
    expect(got).toEqual(["good-1"]);
  });
});

// Both put paths: the KV client's put, and the ack-correlating publisher the watcher uses.
const putPaths: Array<[string, (c: NatsConnection) => JetStreamPublisher | undefined]> = [
  ["kv.put", () => undefined],
  ["a JetStreamPublisher", (c) => new JetStreamPublisher(c, 1_000)],
];
describe.each(putPaths)("state writer putting through %s", (_name, publisherFor) => {
  it("lands rapid changes of one key in order and keeps the last", async () => {
    const writer = new StateWriter(kv, { publisher: publisherFor(nc) });
    for (let i = 0; i < 50; i++) writer.put("node", node("flip", i % 2 === 1), "flip");
    writer.put("node", node("flip", false), "flip"); // back to a value an earlier in-flight write carried
    await writer.flushed();
    const e = await kv.get(stateKey("node", "flip"));
    expect(e!.operation).toBe("PUT");
    expect(NodeState.decode(e!.value).unschedulable).toBe(false);
  });

  it("retries while NATS is away and converges after it returns", async () => {
    const conn = await connectBus({ servers: srv.url, name: "writer-retry" });
    const wkv = await ensureStateBucket(conn);
    const writer = new StateWriter(wkv, { publisher: publisherFor(conn) });
    await srv.kill();
    for (let i = 0; i < 20; i++) writer.put("node", node(`away-${i}`), `away-${i}`);
    await new Promise((r) => setTimeout(r, 300));
    await srv.restart();
    await writer.flushed();
    for (let i = 0; i < 20; i++) expect(await kv.get(stateKey("node", `away-${i}`))).not.toBeNull();
    writer.stop();
    await closeBus(conn);
  });
});

describe("state cache", () => {
  it("loads initial values, then sees puts and deletes in order, ignoring rewrites of the same bytes", async () => {
    const suppressed: string[] = [];
    const writer = new StateWriter(kv, { onSuppressed: (k) => suppressed.push(k) });
    writer.put("node", node("pre-existing"), "pre-existing");
    await writer.flushed();
    const cache = new StateCache(kv, { kinds: ["node"] });
    const changes: StateChange[] = [];
    cache.onChange((c) => changes.push(c));
    await cache.start();
    expect(cache.get("node", "pre-existing")?.name).toBe("pre-existing");

    // Each value seen before the next is written: a KV watch promises the latest value, not every
    // one (with one entry per key, a value replaced before a watch's consumer was recreated, as
    // nats.js's ordered consumer does on a delivery gap, is gone: seen on a loaded machine, 1 run
    // in 10-30).
    const seen = (unschedulable: boolean) => waitFor(() => (cache.get("node", "a.example.com") as NodeState | undefined)?.unschedulable === unschedulable);
    writer.put("node", node("a.example.com"), "a.example.com");
    await writer.flushed();
    await seen(false);
    writer.put("node", node("a.example.com", true), "a.example.com");
    await writer.flushed();
    await seen(true);
    writer.put("node", node("a.example.com", true), "a.example.com");
    expect(suppressed).toEqual([stateKey("node", "a.example.com")]);
    await kv.put(stateKey("node", "a.example.com"), encode(StateKinds.node.codec, node("a.example.com", true))); // a replica's identical write
    writer.remove(stateKey("node", "a.example.com"));
    await writer.flushed();
    await waitFor(() => changes.some((c) => c.op === "delete" && c.parsed.name === "a.example.com"));
    const mine = changes.filter((c) => c.parsed.name === "a.example.com").map((c) => `${c.op}:${(c.value as NodeState | undefined)?.unschedulable ?? "-"}`);
    expect(mine).toEqual(["put:false", "put:true", "delete:-"]);
    expect(cache.get("node", "a.example.com")).toBeUndefined();
    cache.stop();
  });

  it("keeps each value's bytes in a buffer of their own, not a view into the connection's read chunk", async () => {
    const writer = new StateWriter(kv);
    for (let i = 0; i < 50; i++) writer.put("node", node(`own-${i}.example.com`), `own-${i}.example.com`);
    await writer.flushed();
    const cache = new StateCache(kv, { kinds: ["node"] });
    await cache.start();
    const entry = cache.getByKey(stateKey("node", "own-7.example.com"))!;
    expect([...entry.bytes!]).toEqual([...encode(StateKinds.node.codec, node("own-7.example.com"))]);
    expect(entry.bytes!.buffer.byteLength).toBe(entry.bytes!.length);
    cache.stop();
  });

  it("keeps only a projected kind's projection, and tells listeners only when the projection changes", async () => {
    const prefix = "proj-";
    const full = (name: string, unschedulable: boolean, role: string) => NodeState.fromPartial({ name, unschedulable, roles: [role], kubeletVersion: "v1.29.0" });
    const put = (n: NodeState) => kv.put(stateKey("node", n.name), encode(StateKinds.node.codec, n));
    await put(full(`${prefix}a`, false, "worker"));
    const cache = new StateCache(kv, {
      kinds: ["node", "pool"],
      project: { node: (n: NodeState) => ({ name: n.name, cordoned: n.unschedulable }) },
    });
    const changes: StateChange[] = [];
    cache.onChange((c) => c.parsed.name.startsWith(prefix) && changes.push(c));
    await cache.start();
    // The type says what the consumer declared.
    const a: { name: string; cordoned: boolean } | undefined = cache.get("node", `${prefix}a`);
    expect(a).toEqual({ name: `${prefix}a`, cordoned: false });
    expect(cache.getByKey(stateKey("node", `${prefix}a`))?.bytes).toBeUndefined();

    await put(full(`${prefix}a`, false, "infra")); // a field the projection drops: nothing to tell
    await put(full(`${prefix}a`, true, "infra"));
    await put(full(`${prefix}a`, true, "worker")); // dropped field again
    // Seen before the delete replaces it (a watch promises the latest value: see above).
    await waitFor(() => cache.get("node", `${prefix}a`)?.cordoned === true);
    await kv.delete(stateKey("node", `${prefix}a`));
    await put(full(`${prefix}b`, false, "worker"));
    await waitFor(() => changes.some((c) => c.parsed.name === `${prefix}b`));
    const last = await kv.get(stateKey("node", `${prefix}b`));
    expect(cache.getByKey(stateKey("node", `${prefix}b`))?.revision).toBe(last?.revision);
    expect(changes.map((c) => [c.op, c.parsed.name, c.value, c.previous])).toEqual([
      ["put", `${prefix}a`, { name: `${prefix}a`, cordoned: false }, undefined], // the initial load
      ["put", `${prefix}a`, { name: `${prefix}a`, cordoned: true }, { name: `${prefix}a`, cordoned: false }],
      ["delete", `${prefix}a`, undefined, { name: `${prefix}a`, cordoned: true }],
      ["put", `${prefix}b`, { name: `${prefix}b`, cordoned: false }, undefined],
    ]);
    // A suppressed put still advances the revision (a resumed watch starts after it).
    await put(full(`${prefix}b`, false, "infra"));
    const rewritten = await kv.get(stateKey("node", `${prefix}b`));
    await waitFor(() => cache.getByKey(stateKey("node", `${prefix}b`))?.revision === rewritten?.revision);
    expect(changes).toHaveLength(4);
    // Kinds without a projection are kept whole, bytes included.
    await kv.put(stateKey("pool", `${prefix}p`), encode(StateKinds.pool.codec, PoolState.fromPartial({ name: `${prefix}p`, paused: true })));
    await waitFor(() => cache.get("pool", `${prefix}p`) !== undefined);
    expect(cache.get("pool", `${prefix}p`)).toEqual(PoolState.fromPartial({ name: `${prefix}p`, paused: true }));
    expect(cache.getByKey(stateKey("pool", `${prefix}p`))?.bytes).toBeInstanceOf(Uint8Array);
    cache.stop();
  });

  it("keeps out a value its projection throws on, and takes the next one", async () => {
    const name = "proj-throws";
    const cache = new StateCache(kv, {
      kinds: ["node"],
      project: {
        node: (n: NodeState) => {
          if (n.unschedulable) throw new Error("refused");
          return n.roles;
        },
      },
    });
    await cache.start();
    await kv.put(stateKey("node", name), encode(StateKinds.node.codec, NodeState.fromPartial({ name, unschedulable: true })));
    await waitFor(() => cache.invalidKeys.has(stateKey("node", name)));
    expect(cache.get("node", name)).toBeUndefined();
    await kv.put(stateKey("node", name), encode(StateKinds.node.codec, NodeState.fromPartial({ name, roles: ["worker"] })));
    await waitFor(() => cache.get("node", name) !== undefined);
    expect(cache.get("node", name)).toEqual(["worker"]);
    expect(cache.invalidKeys.has(stateKey("node", name))).toBe(false);
    cache.stop();
  });

  it("is ready at once on an empty filter and skips undecodable values", async () => {
    await kv.put(stateKey("pool", "broken"), new Uint8Array([0xff, 0xff, 0xff]));
    const cache = new StateCache(kv, { kinds: ["machineSet", "pool"] });
    await cache.start();
    expect(cache.list("machineSet")).toEqual([]);
    expect(cache.invalidKeys.has(stateKey("pool", "broken"))).toBe(true);
    cache.stop();
  });

  it("converges with nothing lost when the server is killed and restarted mid-stream", async () => {
    const watcherConn = await connectBus({ servers: srv.url, name: "cache" });
    const cacheKv = await ensureStateBucket(watcherConn);
    const cache = new StateCache(cacheKv, { kinds: ["node"] });
    await cache.start();

    const writerConn = await connectBus({ servers: srv.url, name: "writer" });
    const writerKv = await ensureStateBucket(writerConn);
    const expected = new Map<string, boolean>();
    const write = async (i: number, flag: boolean) => {
      const name = `churn-${i}`;
      for (;;) {
        try {
          await writerKv.put(stateKey("node", name), encode(StateKinds.node.codec, node(name, flag)));
          expected.set(name, flag);
          return;
        } catch {
          await new Promise((r) => setTimeout(r, 100)); // server down: retry until it is back
        }
      }
    };
    for (let i = 0; i < 200; i++) await write(i, false);
    await srv.kill();
    const restarting = new Promise((r) => setTimeout(r, 300)).then(() => srv.restart());
    for (let i = 100; i < 300; i++) await write(i, true);
    await restarting;
    for (let i = 0; i < 50; i++) {
      await writerKv.delete(stateKey("node", `churn-${i}`));
      expected.delete(`churn-${i}`);
    }
    await waitFor(
      () => {
        const names = cache.list("node").filter((n) => n.name.startsWith("churn-"));
        return names.length === expected.size && names.every((n) => expected.get(n.name) === n.unschedulable);
      },
      { timeoutMs: 30_000, what: "cache to converge" },
    );
    cache.stop();
    await closeBus(writerConn);
    await closeBus(watcherConn);
  });
});

describe("busOptionsFromConfig", () => {
  it("maps the runtime's NATS variables onto connection options", async () => {
    const { busOptionsFromConfig } = await import("./connection.js");
    expect(busOptionsFromConfig({ NATS_URL: ["nats://a:4222", "nats://b:4222"], NATS_USER: "u", NATS_PASSWORD: "p" }, "lockstep-x")).toEqual({
      servers: ["nats://a:4222", "nats://b:4222"],
      name: "lockstep-x",
      user: "u",
      password: "p",
      token: undefined,
      credsFile: undefined,
    });
  });
});
