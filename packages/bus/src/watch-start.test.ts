// storedUpTo and the watch consumer's own figures (watch-consumer.ts) against a real nats-server, and the KV library behaviour the state cache builds on them:
// a watch (as watchOptions asks: every stored entry, of a bucket that keeps one per key) replays each key's last entry, marks only the last replayed entry and later ones as
// updates, and numbers entries by stream sequence. If an upgrade of @nats-io/kv changes any of it,
// this fails instead of the cache silently waiting forever or treating old heartbeats as live.
import type { KV, KvWatchEntry } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/transport-node";
import { startNatsServer, waitFor, type NatsServer } from "@lockstep/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeBus, connectBus } from "./connection.js";
import { ensureStateBucket } from "./setup.js";
import { jetstreamManager } from "@nats-io/jetstream";
import { consumerOf, deleteConsumer, pendingAtStart } from "./watch-consumer.js";
import { storedUpTo, watchOptions } from "./watch-start.js";

let srv: NatsServer;
let nc: NatsConnection;
let kv: KV;

beforeAll(async () => {
  srv = await startNatsServer();
  nc = await connectBus({ servers: srv.url, name: "watch-start-test" });
  kv = await ensureStateBucket(nc);
});

afterAll(async () => {
  await closeBus(nc);
  await srv.stop();
});

const bytes = (s: string) => new TextEncoder().encode(s);

describe("the start of a state watch", () => {
  it("says up to which revision entries were stored before, and the watch's consumer says what its filter held at creation", async () => {
    const held = async (filter: string) => {
      const w = await kv.watch(watchOptions(filter, undefined));
      try {
        return await pendingAtStart(w);
      } finally {
        w.stop();
        deleteConsumer(w);
      }
    };
    expect([await storedUpTo(kv), await held("a.>")]).toEqual([0, 0]);
    await kv.put("a.one", bytes("1"));
    const second = await kv.put("a.two", bytes("2"));
    expect([await storedUpTo(kv), await held("a.>"), await held("b.>")]).toEqual([second, 2, 0]);
    await kv.put("c.gone", bytes("x"));
    await kv.delete("c.gone");
    // Only a delete marker: the watch replays it (and marks it the last initial entry).
    expect([await storedUpTo(kv), await held("c.>")]).toEqual([second + 2, 1]);
  });

  it("deletes an ended watch's consumer at once (nats.js would leave it on the server for 5 minutes)", async () => {
    const jsm = await jetstreamManager(nc);
    const names = async () => {
      const out: string[] = [];
      for await (const c of jsm.consumers.list("KV_lockstep-state-v1")) out.push(c.name);
      return out;
    };
    const w = await kv.watch(watchOptions("a.>", undefined));
    const name = (await consumerOf(w)!.info(true)) as { name?: string };
    expect(await names()).toContain(name.name);
    w.stop();
    expect(await names()).toContain(name.name); // stopping alone leaves it
    deleteConsumer(w);
    await waitFor(async () => !(await names()).includes(name.name!), { what: "the watch's consumer deleted" });
  });

  it("asks for every stored entry or from a revision, never the last entry per key (nats-server recounts those per message)", async () => {
    const policy = async (lastSeen: number | undefined) => {
      const w = await kv.watch(watchOptions("e.>", lastSeen));
      try {
        return ((await consumerOf(w)!.info(true)) as { config: { deliver_policy: string; opt_start_seq?: number } }).config;
      } finally {
        w.stop();
        deleteConsumer(w);
      }
    };
    expect(await policy(undefined)).toMatchObject({ deliver_policy: "all" });
    expect(await policy(6)).toMatchObject({ deliver_policy: "by_start_sequence", opt_start_seq: 7 });
    // Every stored entry is the last per key only because the bucket keeps one.
    expect((await kv.status()).history).toBe(1);
  });

  it("relies on watches that mark the last replayed entry and everything after it as updates", async () => {
    for (let i = 0; i < 5; i++) await kv.put(`d.k${i}`, bytes(`v${i}`));
    await kv.put("d.k0", bytes("v0 again"));
    const stored = await storedUpTo(kv);
    const iter = await kv.watch(watchOptions("d.>", undefined));
    const seen: KvWatchEntry[] = [];
    const done = (async () => {
      for await (const e of iter) seen.push(e);
    })();
    try {
      await waitFor(() => seen.length === 5);
      expect(seen.map((e) => [e.key, e.isUpdate, e.revision <= stored])).toEqual([
        ["d.k1", false, true],
        ["d.k2", false, true],
        ["d.k3", false, true],
        ["d.k4", false, true],
        ["d.k0", true, true],
      ]);
      const live = await kv.put("d.k9", bytes("live"));
      await waitFor(() => seen.length === 6);
      expect([seen[5]!.key, seen[5]!.isUpdate, seen[5]!.revision]).toEqual(["d.k9", true, live]);
      expect(live).toBeGreaterThan(stored);
    } finally {
      iter.stop();
      await done;
    }
  });
});
