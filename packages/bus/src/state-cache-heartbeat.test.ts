// The StateCache's view age against a real nats-server: the watcher's heartbeat counts only when
// received live, on the consumer's clock, and never reaches change listeners.
import type { KV } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/transport-node";
import { encode, Heartbeat, HEARTBEAT_KEY, NodeState, stateKey, StateKinds } from "@lockstep/contracts";
import { startNatsServer, waitFor, type NatsServer } from "@lockstep/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeBus, connectBus } from "./connection.js";
import { ensureStateBucket } from "./setup.js";
import { StateCache, type StateChange } from "./state-cache.js";

let srv: NatsServer;
let nc: NatsConnection;
let kv: KV;

beforeAll(async () => {
  srv = await startNatsServer();
  nc = await connectBus({ servers: srv.url, name: "heartbeat-test" });
  kv = await ensureStateBucket(nc);
});

afterAll(async () => {
  await closeBus(nc);
  await srv.stop();
});

const beat = (generation: number) => encode(Heartbeat, Heartbeat.fromPartial({ generation: String(generation), time: new Date(), writer: "w1" }));

describe("state cache heartbeat", () => {
  it("ages from its start until a heartbeat arrives live, then from that receipt, and tells no change listener", async () => {
    await kv.put(HEARTBEAT_KEY, beat(1)); // stored before the consumer starts: its age is unknowable
    let clock = 1_000;
    const cache = new StateCache(kv, { kinds: ["node"], now: () => clock });
    const changes: StateChange[] = [];
    cache.onChange((c) => changes.push(c));
    const heard: string[] = [];
    cache.onHeartbeat((h) => heard.push(h.generation));
    await cache.start();
    try {
      expect(cache.heartbeat?.generation).toBe("1");
      expect(cache.age()).toEqual({ ageMs: 0, heard: false });
      clock = 21_000;
      expect(cache.age()).toEqual({ ageMs: 20_000, heard: false });

      await kv.put(HEARTBEAT_KEY, beat(2));
      await waitFor(() => cache.age().heard);
      expect(cache.age()).toEqual({ ageMs: 0, heard: true });
      expect(heard).toEqual(["2"]);
      clock = 24_500;
      expect(cache.age()).toEqual({ ageMs: 3_500, heard: true });

      // Ordinary state still flows; the heartbeat is neither a change nor an entry.
      await kv.put(stateKey("node", "n1"), encode(NodeState, NodeState.fromPartial({ name: "n1" })));
      await waitFor(() => changes.length === 1);
      expect(changes.map((c) => c.key)).toEqual([stateKey("node", "n1")]);
      expect(cache.list("heartbeat")).toEqual([]);
      expect(cache.getByKey(HEARTBEAT_KEY)).toBeUndefined();
      expect(StateKinds.heartbeat.prefix).toBe("heartbeat");
    } finally {
      cache.stop();
    }
  });

  it("keeps the age growing while no heartbeat comes (a dead watcher)", async () => {
    let clock = 0;
    const cache = new StateCache(kv, { now: () => clock });
    await cache.start();
    try {
      await kv.put(HEARTBEAT_KEY, beat(3));
      await waitFor(() => cache.age().heard);
      clock = 41_000;
      expect(cache.age()).toEqual({ ageMs: 41_000, heard: true });
    } finally {
      cache.stop();
    }
  });
});
