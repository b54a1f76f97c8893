// Two writers of one bucket (two watcher replicas, or a deposed leader still flushing) are fed the
// same versions of the same objects in the same order, one of them lagging behind the other at
// random, while a KV watch records what consumers would see. Whatever the interleaving, a key's
// value never goes back to an older version of its object, and it ends at the newest one.
import type { KV, KvWatchEntry } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/transport-node";
import { startNatsServer, waitFor, type NatsServer } from "@lockstep/testing";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeBus, connectBus } from "./connection.js";
import { JetStreamPublisher } from "./jetstream-publisher.js";
import { ensureKvBucket } from "./setup.js";
import { StateWriter } from "./state-writer.js";

let srv: NatsServer;
let nc: NatsConnection;
let kv: KV;
/** Per key, the resourceVersion of every value the watch delivered, in order. */
const seen = new Map<string, number[]>();

beforeAll(async () => {
  srv = await startNatsServer();
  nc = await connectBus({ servers: srv.url, name: "writer-order" });
  kv = await ensureKvBucket(nc, "writer-order-test");
  const iter = await kv.watch({ key: ">" });
  void (async () => {
    for await (const e of iter as AsyncIterable<KvWatchEntry>) {
      if (e.operation !== "PUT") continue;
      const list = seen.get(e.key) ?? [];
      list.push(rvOf(e.value));
      seen.set(e.key, list);
    }
  })();
});

afterAll(async () => {
  await closeBus(nc);
  await srv?.stop();
});

const text = new TextEncoder();
/**
 * A version's bytes name the first resourceVersion that had them: versions whose snapshot did not
 * change (a status heartbeat that normalises away) share their bytes, as in the watcher.
 */
const bytesOf = (key: string, firstRv: number) => text.encode(`${key}@${firstRv}`);
const rvOf = (bytes: Uint8Array) => Number(new TextDecoder().decode(bytes).split("@")[1]);

/** One object's versions: whether each changed the snapshot (the first always does). */
const objectVersions = fc.array(fc.boolean(), { minLength: 2, maxLength: 12 });
const scenario = fc.record({
  objects: fc.array(objectVersions, { minLength: 1, maxLength: 4 }),
  /** Interleaves the objects' versions into one ordered stream (an informer's). */
  merge: fc.array(fc.nat(), { minLength: 64, maxLength: 64 }),
  /** Which writer steps next (the lagging one only when behind), and whether a step waits. */
  steps: fc.array(fc.tuple(fc.boolean(), fc.nat(3)), { minLength: 200, maxLength: 200 }),
});
type Scenario = typeof scenario extends fc.Arbitrary<infer T> ? T : never;

let runs = 0;

async function runScenario(s: Scenario): Promise<{ puts: number; regressions: number; wrongFinal: number }> {
  const run = runs++;
  // The ordered stream of (key, rv, bytes): rv grows across all objects, as etcd's revision does.
  const queues = s.objects.map((changes, i) => {
    const key = `r${run}.k${i}`;
    return changes.map((changed, j) => ({ key, changed: changed || j === 0 }));
  });
  const stream: Array<{ key: string; rv: number; bytes: Uint8Array }> = [];
  const firstRvOf = new Map<string, number>();
  let rv = 100;
  for (let m = 0; queues.some((q) => q.length > 0); m++) {
    const open = queues.filter((q) => q.length > 0);
    const v = open[(s.merge[m % s.merge.length] ?? 0) % open.length]!.shift()!;
    rv++;
    if (v.changed) firstRvOf.set(v.key, rv);
    stream.push({ key: v.key, rv, bytes: bytesOf(v.key, firstRvOf.get(v.key)!) });
  }

  let puts = 0;
  // Both put paths: writer 0 through a JetStreamPublisher (as the watcher), writer 1 through nats.js.
  const writers = [0, 1].map(
    (i) => new StateWriter(kv, { publisher: i === 0 ? new JetStreamPublisher(nc) : undefined, onWritten: (_k, op) => void (op === "put" && puts++) }),
  );
  const at = [0, 0];
  let step = 0;
  while (at[0]! < stream.length || at[1]! < stream.length) {
    const [pickLagging, wait] = s.steps[step++ % s.steps.length]!;
    // Writer 1 lags: it steps only while behind writer 0 (or once writer 0 is done).
    const w = at[0]! >= stream.length || (pickLagging && at[1]! < at[0]!) ? 1 : 0;
    const v = stream[at[w]!++]!;
    writers[w]!.set(v.key, v.bytes, Date.now(), String(v.rv));
    if (wait === 1) await new Promise((r) => setImmediate(r));
    else if (wait === 2) await new Promise((r) => setTimeout(r, 1));
    else if (wait === 3) await writers[w]!.flushed();
  }
  await Promise.all(writers.map((w) => w.flushed()));
  for (const w of writers) w.stop();

  let regressions = 0;
  let wrongFinal = 0;
  for (const [key, newest] of firstRvOf) {
    // The watch delivers in stream order: once the bucket's last write is seen, all before it were.
    const last = await kv.get(key);
    await waitFor(() => (seen.get(key) ?? []).length > 0 && seen.get(key)!.at(-1) === rvOf(last!.value));
    const rvs = seen.get(key)!;
    for (let i = 1; i < rvs.length; i++) if (rvs[i]! < rvs[i - 1]!) regressions++;
    if (rvOf(last!.value) !== newest) wrongFinal++;
  }
  return { puts, regressions, wrongFinal };
}

describe("two StateWriters on one bucket, one lagging", () => {
  it("never put an older version of an object after a newer one, and end at the newest", { timeout: 240_000 }, async () => {
    // Fixed inputs (no shrinking) so the figures compare across versions of the writer.
    const cases = fc.sample(scenario, { numRuns: 40, seed: 20261127 });
    const total = { puts: 0, regressions: 0, wrongFinal: 0, keys: 0 };
    for (const c of cases) {
      const r = await runScenario(c);
      total.puts += r.puts;
      total.regressions += r.regressions;
      total.wrongFinal += r.wrongFinal;
      total.keys += c.objects.length;
    }
    console.log(`two writers, ${cases.length} scenarios, ${total.keys} keys: ${total.puts} puts, ${total.regressions} regressions, ${total.wrongFinal} keys not at their newest version`);
    expect(total.regressions).toBe(0);
    expect(total.wrongFinal).toBe(0);
  });
});
