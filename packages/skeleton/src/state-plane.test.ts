// The shared state-plane start-up against a real nats-server: nothing is served before the
// watcher's meta.synced, changes reach the wiring, and the stop runs drain before the connection
// closes.
import { closeBus, connectBus, ensureStateBucket, type StateChange } from "@lockstep/bus";
import { encode, NodeState, stateKey, SyncMarker, SYNCED_KEY } from "@lockstep/contracts";
import { Readiness, silentLogger } from "@lockstep/runtime";
import { startNatsServer, waitFor, type NatsServer } from "@lockstep/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stateConsumer, withPlanes } from "./state-plane.js";

let srv: NatsServer;

beforeAll(async () => {
  srv = await startNatsServer();
});

afterAll(async () => {
  await srv.stop();
});

describe("stateConsumer", () => {
  it("wires before the load, serves only after meta.synced with the service ready, and drains on stop", async () => {
    const writer = await connectBus({ servers: srv.url, name: "writer" });
    try {
      const kv = await ensureStateBucket(writer);
      await kv.delete(SYNCED_KEY);
      await kv.put(stateKey("node", "n1"), encode(NodeState, NodeState.fromPartial({ name: "n1" })));
      const steps: string[] = [];
      const changes: StateChange[] = [];
      const readiness = new Readiness();
      const abort = new AbortController();
      const runnable = stateConsumer({
        name: "test-consumer",
        bus: { servers: srv.url, name: "consumer" },
        logger: silentLogger(),
        kinds: ["node"],
        readiness,
        notSyncedReason: "waiting for meta.synced",
        wire: (plane) => {
          steps.push("wire");
          plane.cache.onChange((c) => changes.push(c));
        },
        serve: async (plane, signal) => {
          steps.push(`serve ${plane.cache.list("node").map((n) => n.name).join(",")}`);
          await new Promise<void>((r) => signal.addEventListener("abort", () => r(), { once: true }));
          steps.push("served");
        },
        drain: async () => {
          steps.push("drain");
        },
      });
      const running = runnable.start(abort.signal);
      await waitFor(() => changes.length === 1);
      // Loaded, but the watcher has not said it is synced: not ready, not serving.
      expect(steps).toEqual(["wire"]);
      expect((await readiness.evaluate()).checks.find((c) => c.name === "state-synced")).toEqual({ name: "state-synced", ok: false, reason: "waiting for meta.synced" });
      await kv.put(SYNCED_KEY, encode(SyncMarker, SyncMarker.fromPartial({})));
      await waitFor(() => steps.length === 2);
      expect(steps).toEqual(["wire", "serve n1"]);
      expect((await readiness.evaluate()).checks.find((c) => c.name === "state-synced")).toEqual({ name: "state-synced", ok: true });
      abort.abort();
      await running;
      expect(steps).toEqual(["wire", "serve n1", "served", "drain"]);
    } finally {
      await closeBus(writer);
    }
  });

  it("resolves quietly when stopped before meta.synced, and fails when it cannot connect", async () => {
    await withPlanes({ servers: srv.url, name: "cleaner" }, async ({ kv }) => {
      await kv.delete(SYNCED_KEY);
    });
    let served = false;
    const o = {
      name: "test-consumer",
      logger: silentLogger(),
      kinds: ["node"] as const,
      notSyncedReason: "waiting",
      serve: async () => {
        served = true;
      },
    };
    const abort = new AbortController();
    const running = stateConsumer({ ...o, bus: { servers: srv.url, name: "early" } }).start(abort.signal);
    await new Promise((r) => setTimeout(r, 200));
    abort.abort();
    await expect(running).resolves.toBeUndefined();
    expect(served).toBe(false);
    await expect(stateConsumer({ ...o, bus: { servers: "nats://127.0.0.1:1", name: "nowhere", timeoutMs: 500 } }).start(new AbortController().signal)).rejects.toThrow();
  });
});
