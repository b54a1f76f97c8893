// The StateWriter's compare-and-set, case by case: what a writer that missed another's write does
// with a put or a delete, and what it learns from prime() and resync().
import { jetstreamManager } from "@nats-io/jetstream";
import type { KV } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/transport-node";
import { HEADER_RESOURCE_VERSION } from "@lockstep/contracts";
import { startNatsServer, type NatsServer } from "@lockstep/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeBus, connectBus } from "./connection.js";
import { ensureKvBucket } from "./setup.js";
import { StateWriter } from "./state-writer.js";

let srv: NatsServer;
let nc: NatsConnection;
let kv: KV;

beforeAll(async () => {
  srv = await startNatsServer();
  nc = await connectBus({ servers: srv.url, name: "writer-cas" });
  kv = await ensureKvBucket(nc, "writer-cas-test");
});
afterAll(async () => {
  await closeBus(nc);
  await srv?.stop();
});

const v = (s: string) => new TextEncoder().encode(s);
const valueOf = async (key: string) => {
  const e = await kv.get(key);
  return e === null || e.operation !== "PUT" ? null : e.string();
};
function writer(log: string[] = []) {
  return new StateWriter(kv, { onStale: (k, op) => log.push(`stale ${op} ${k}`), onWritten: (k, op) => log.push(`${op} ${k}`) });
}

describe("StateWriter compare-and-set", () => {
  it("does not put an older version over a newer one it did not know of, and learns the newer one", async () => {
    const a = writer();
    const b: string[] = [];
    const lagging = writer(b);
    a.set("put", v("ten"), 0, "10");
    await a.flushed();
    lagging.set("put", v("five"), 0, "5");
    await lagging.flushed();
    expect(await valueOf("put")).toBe("ten");
    lagging.set("put", v("ten"), 0, "10"); // what its informer delivers next: already there
    await lagging.flushed();
    expect(b).toEqual(["stale put put"]);
  });

  it("overwrites an older version it did not know of (an older or unknown resourceVersion loses)", async () => {
    const a = writer();
    a.set("older", v("five"), 0, "5");
    await a.flushed();
    const b = writer();
    b.set("older", v("seven"), 0, "7");
    await b.flushed();
    expect(await valueOf("older")).toBe("seven");
    await kv.put("not-decimal", v("x")); // no header at all
    b.set("not-decimal", v("mine"), 0, "8");
    await b.flushed();
    expect(await valueOf("not-decimal")).toBe("mine");
  });

  it("does not delete a newer version than the deleted object's", async () => {
    const a = writer();
    a.set("del", v("five"), 0, "5");
    await a.flushed();
    const log: string[] = [];
    const lagging = writer(log);
    lagging.prime([["del", v("five"), (await kv.get("del"))!.revision, "5"]]);
    a.set("del", v("nine"), 0, "9");
    await a.flushed();
    lagging.remove("del", 0, "7");
    await lagging.flushed();
    expect(log).toEqual(["stale delete del"]);
    expect(await valueOf("del")).toBe("nine");
    lagging.remove("del", 0, "10"); // deleted at a newer version than the bucket's: goes
    await lagging.flushed();
    expect(await valueOf("del")).toBeNull();
  });

  it("does not resurrect a deleted object with a late put of an older version", async () => {
    const a = writer();
    a.set("gone", v("five"), 0, "5");
    await a.flushed();
    const rev = (await kv.get("gone"))!.revision;
    a.remove("gone", 0, "8");
    await a.flushed();
    const lagging = writer();
    lagging.prime([["gone", v("five"), rev, "5"]]);
    lagging.set("gone", v("six"), 0, "6");
    await lagging.flushed();
    expect(await valueOf("gone")).toBeNull();
    lagging.set("gone", v("recreated"), 0, "12"); // a new object of that name
    await lagging.flushed();
    expect(await valueOf("gone")).toBe("recreated");
  });

  it("stores the resourceVersion with the value, and keeps plain puts for keys without one", async () => {
    const a = writer();
    a.set("rv", v("x"), 0, "42");
    a.set("meta", v("m1"));
    await a.flushed();
    const sm = await (await jetstreamManager(nc)).streams.getMessage("KV_writer-cas-test", { last_by_subj: "$KV.writer-cas-test.rv" });
    expect(sm?.header.get(HEADER_RESOURCE_VERSION)).toBe("42");
    await kv.put("meta", v("someone else's"));
    a.set("meta", v("m2")); // no compare-and-set: lands whatever the bucket held
    await a.flushed();
    expect(await valueOf("meta")).toBe("m2");
  });

  it("resync() learns every key's value, revision and resourceVersion from the bucket", async () => {
    const a = writer();
    a.set("rs.1", v("one"), 0, "20");
    a.set("rs.2", v("two"), 0, "21");
    a.set("rs.3", v("three"), 0, "22");
    await a.flushed();
    a.remove("rs.3", 0, "23");
    await a.flushed();
    const log: string[] = [];
    const b = new StateWriter(kv, { onSuppressed: (k) => log.push(`same ${k}`), onStale: (k, op) => log.push(`stale ${op} ${k}`), onWritten: (k, op) => log.push(`${op} ${k}`) });
    await b.resync();
    expect([...b.keys()].filter((k) => k.startsWith("rs.")).sort()).toEqual(["rs.1", "rs.2"]);
    b.set("rs.1", v("one"), 0, "20"); // known: not rewritten
    b.set("rs.2", v("two, older"), 0, "19"); // the bucket's is newer: known without a round trip
    b.set("rs.4", v("four"), 0, "24");
    await b.flushed();
    expect(log.sort()).toEqual(["put rs.4", "same rs.1", "stale put rs.2"]);
    expect(await valueOf("rs.2")).toBe("two");
  });
});
