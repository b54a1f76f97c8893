// storedUpTo and hasValues against a real nats-server, and the KV library behaviour the state cache builds on them:
// a watch replays each key's last entry, marks only the last replayed entry and later ones as
// updates, and numbers entries by stream sequence. If an upgrade of @nats-io/kv changes any of it,
// this fails instead of the cache silently waiting forever or treating old heartbeats as live.
import type { KV, KvWatchEntry } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/transport-node";
import { startNatsServer, waitFor, type NatsServer } from "@lockstep/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeBus, connectBus } from "./connection.js";
import { ensureStateBucket } from "./setup.js";
import { hasValues, storedUpTo } from "./watch-start.js";

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
  it("says whether a filter holds values, and up to which revision entries were stored before", async () => {
    expect([await storedUpTo(kv), await hasValues(kv, "a.>")]).toEqual([0, false]);
    await kv.put("a.one", bytes("1"));
    const second = await kv.put("a.two", bytes("2"));
    expect([await storedUpTo(kv), await hasValues(kv, "a.>"), await hasValues(kv, "b.>")]).toEqual([second, true, false]);
    await kv.put("c.gone", bytes("x"));
    await kv.delete("c.gone");
    // Only a delete marker: nothing to load.
    expect([await storedUpTo(kv), await hasValues(kv, "c.>")]).toEqual([second + 2, false]);
  });

  it("relies on watches that mark the last replayed entry and everything after it as updates", async () => {
    for (let i = 0; i < 5; i++) await kv.put(`d.k${i}`, bytes(`v${i}`));
    await kv.put("d.k0", bytes("v0 again"));
    const stored = await storedUpTo(kv);
    const iter = await kv.watch({ key: "d.>" });
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
