// A three-server cluster keeps an R3 stream and bucket through the loss of the stream's leader, and
// a killed server rejoins on restart. Facts the HA design rests on, checked on the real binary.
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { afterAll, describe, expect, it } from "vitest";
import { natsReplicasFor, parseNatsClusterSize, startNatsCluster, type NatsCluster } from "./nats-cluster.js";

const STREAM = "HA_TEST";

async function retry<T>(what: () => Promise<T>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await what();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

describe("parseNatsClusterSize", () => {
  it("takes 1 or 3 and more, and says why not otherwise", () => {
    expect(parseNatsClusterSize("1")).toEqual({ size: 1 });
    expect(parseNatsClusterSize("5")).toEqual({ size: 5 });
    for (const bad of ["2", "0", "-3", "three", "3.5", ""]) expect(parseNatsClusterSize(bad)).toMatchObject({ error: expect.stringMatching(/^--nats-cluster must be 1 or at least 3 .*, got /) });
    expect([1, 3, 5].map(natsReplicasFor)).toEqual([1, 3, 3]);
  });
});

describe("startNatsCluster", () => {
  let cluster: NatsCluster | undefined;
  let nc: NatsConnection | undefined;
  afterAll(async () => {
    await nc?.close();
    await cluster?.stop();
  });

  it("refuses a two-server cluster (no majority once one is lost)", async () => {
    await expect(startNatsCluster({ size: 2 })).rejects.toThrow("a NATS cluster needs 1 or at least 3 servers (got 2)");
  });

  it("keeps an R3 stream and bucket through SIGKILL of the stream leader, and the server rejoins on restart", { timeout: 90_000 }, async () => {
    cluster = await startNatsCluster({ size: 3 });
    expect(cluster.urls).toHaveLength(3);
    expect(cluster.servers.map((s) => s.serverName)).toEqual(["n1", "n2", "n3"]);
    nc = await connect({ servers: cluster.urls, maxReconnectAttempts: -1, reconnectTimeWait: 250 });
    const jsm = await jetstreamManager(nc);
    // Right after the meta leader is elected, a peer may not yet count as current: the create is
    // refused with "no suitable peers for placement" (seen once on a loaded machine) until it does.
    await retry(() => jsm.streams.add({ name: STREAM, subjects: ["ha.>"], num_replicas: 3 }), 30_000);
    const kvm = new Kvm(nc);
    const kv = await retry(() => kvm.create("ha-test", { replicas: 3 }), 30_000);
    expect((await kv.status()).replicas).toBe(3);
    const js = jetstream(nc, { timeout: 2_000 });
    const before = await js.publish("ha.before", "acked before the kill");
    await kv.put("k", "v1");

    const leader = await cluster.streamLeader(STREAM);
    expect(leader).toBeDefined();
    await leader!.kill();
    const t0 = Date.now();
    await retry(() => kv.put("k", "v2"), 30_000);
    await retry(() => js.publish("ha.after", "after"), 30_000);
    const recoveredMs = Date.now() - t0;
    // From the stream leader: kv.get is a direct get that a lagging follower may answer.
    const stored = await jsm.streams.getMessage("KV_ha-test", { last_by_subj: "$KV.ha-test.k" });
    expect(new TextDecoder().decode(stored!.data)).toBe("v2");
    const kept = await retry(() => jsm.streams.getMessage(STREAM, { seq: before.seq }), 10_000);
    expect(new TextDecoder().decode(kept!.data)).toBe("acked before the kill");
    const newLeader = await retry(async () => (await cluster!.streamLeader(STREAM)) ?? Promise.reject(new Error("no leader")), 10_000);
    expect(newLeader.serverName).not.toBe(leader!.serverName);

    await leader!.restart();
    await retry(async () => {
      const info = await jsm.streams.info(STREAM);
      const peer = info.cluster?.replicas?.find((r) => r.name === leader!.serverName);
      if (peer?.current !== true) throw new Error(`${leader!.serverName} not current yet`);
    }, 30_000);
    // Surfaces in the test output: how long the client was without a writable stream.
    console.log(`stream leader ${leader!.serverName} killed; writes resumed after ${recoveredMs} ms via ${newLeader.serverName}`);
  });
});
