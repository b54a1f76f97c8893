// NATS least privilege, end to end: a real nats-server runs the authorization block the chart
// generates (one user per service). The watcher runs for real (in-process, against kube-sim) as its
// user; every service's bus start-up (packages/bus, as its code calls it) and its own facts succeed
// as its user; publishing outside its own subjects is refused with a permissions violation.
import { randomBytes } from "node:crypto";
import { CoreV1Api } from "@kubernetes/client-node";
import { closeBus, connectBus, ensureEventStream, ensureLeaseQueueBucket, ensureStateBucket, EventPublisher, StateCache, StateWriter } from "@lockstep/bus";
import { EVENTS_STREAM, Events, leaseQueueKey, STATE_BUCKET, type EventType } from "@lockstep/contracts";
import { kubeConfigForUrl } from "@lockstep/kube/client-node";
import { startKubeSim, type KubeSim } from "@lockstep/kube-sim";
import { silentLogger } from "@lockstep/runtime";
import { startNatsServer, TEST_WATCHER_OPTIONS, waitFor, type NatsServer } from "@lockstep/testing";
import { watcherRunnable } from "@lockstep/watcher";
import { jetstreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { parse } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chartDir } from "./paths.js";
import { renderChart } from "./chart.js";

const SERVICES = ["watcher", "lease-coordinator", "skew-enforcer", "bootimage-updater", "status-aggregator"] as const;
type Service = (typeof SERVICES)[number];

/** The facts each service publishes (its code: EventPublisher calls; DESIGN.md's service table). */
const OWN_EVENTS: Record<Service, Array<EventType<any>>> = {
  watcher: [],
  "lease-coordinator": [Events.leaseGranted, Events.leaseDenied, Events.leaseReleased, Events.leaseExpired, Events.leasePreempted, Events.leasePreemptionWithdrawn, Events.warningRaised],
  "skew-enforcer": [Events.skewEvaluated, Events.upgradeableChanged, Events.updateCompleted],
  "bootimage-updater": [Events.bootImageUpdated, Events.bootImageSkipped, Events.bootImageUpdateFailed],
  "status-aggregator": [Events.insightChanged],
};

// nats-server parses a variable's value as a config token: a password must start with a letter
// (one starting with a digit is read as a number and the server refuses to start; see README).
const passwords = Object.fromEntries(SERVICES.map((s) => [s, `p${randomBytes(12).toString("hex")}`])) as Record<Service, string>;
const envName = (s: Service) => `LOCKSTEP_${s.toUpperCase().replace(/-/g, "_")}_NATS_PASSWORD`;

let nats: NatsServer;
let sim: KubeSim;
const stop = new AbortController();
let watcherRun: Promise<void>;
const conns: NatsConnection[] = [];

async function connectAs(s: Service): Promise<NatsConnection> {
  const nc = await connectBus({ servers: nats.url, name: `test-${s}`, user: `lockstep-${s}`, password: passwords[s] });
  conns.push(nc);
  return nc;
}

const eventFor = (type: EventType<any>) => type.codec.fromPartial({});

beforeAll(async () => {
  const { manifests } = renderChart(chartDir, { values: { global: { nats: { authorization: { configMap: true } } } } });
  const cm = manifests.find((m) => m.kind === "ConfigMap" && m.metadata.name.endsWith("-nats-authorization"));
  const conf = (cm as unknown as { data: Record<string, string> }).data["authorization.conf"]!;
  // The server resolves $LOCKSTEP_<SERVICE>_NATS_PASSWORD from its environment, as in a cluster.
  for (const s of SERVICES) process.env[envName(s)] = passwords[s];
  nats = await startNatsServer({ config: conf });
  sim = await startKubeSim({ crds: "openshift" });
  const kc = kubeConfigForUrl(sim.url);
  await kc.makeApiClient(CoreV1Api).createNode({ body: { metadata: { name: "worker-0", labels: { "node-role.kubernetes.io/worker": "" } } } });
  watcherRun = watcherRunnable({
    kc,
    bus: { servers: nats.url, name: "lockstep-watcher", user: "lockstep-watcher", password: passwords.watcher },
    logger: silentLogger(),
    ...TEST_WATCHER_OPTIONS,
  }).start(stop.signal);
});

afterAll(async () => {
  stop.abort();
  await watcherRun?.catch(() => {});
  for (const nc of conns) await closeBus(nc);
  await nats?.stop();
  await sim?.stop();
  for (const s of SERVICES) delete process.env[envName(s)];
});

describe("the generated authorization block", () => {
  it("has one user per service with exactly its own event subjects", () => {
    const { manifests } = renderChart(chartDir, { values: { global: { nats: { authorization: { configMap: true } } } } });
    const conf = (manifests.find((m) => m.kind === "ConfigMap" && m.metadata.name.endsWith("-nats-authorization")) as unknown as { data: Record<string, string> }).data["authorization.conf"]!;
    const users = [...conf.matchAll(/user: "([^"]+)"[\s\S]*?publish: \{ allow: \[([^\]]*)\]/g)].map((m) => ({
      user: m[1]!,
      events: (parse(`[${m[2]}]`) as string[]).filter((s) => s.startsWith("lockstep.v1.evt.")).sort(),
    }));
    expect(users.map((u) => u.user).sort()).toEqual(SERVICES.map((s) => `lockstep-${s}`).sort());
    for (const u of users) expect(u.events).toEqual(OWN_EVENTS[u.user.replace("lockstep-", "") as Service].map((e) => e.subject).sort());
  });
});

describe("each service can do its job as its own NATS user", () => {
  it("the watcher fills the state bucket (KV puts) and marks it synced", async () => {
    const nc = await connectAs("status-aggregator");
    const cache = new StateCache(await ensureStateBucket(nc));
    await cache.start();
    await waitFor(() => cache.synced !== undefined && cache.get("node", "worker-0") !== undefined, { timeoutMs: 20_000, what: "watcher's state" });
    expect(cache.get("node", "worker-0")).toMatchObject({ roles: ["worker"] });
    cache.stop();
  });

  // A replica that wins the election reads the bucket (resync), and a compare-and-set refused because
  // another writer got there first reads the key's stored resourceVersion: both as the watcher's user.
  it("the watcher resyncs and settles a refused compare-and-set as its user", async () => {
    const nc = await connectAs("watcher");
    const kv = await ensureStateBucket(nc);
    const stale: string[] = [];
    const newer = new StateWriter(kv);
    const older = new StateWriter(kv, { onStale: (key) => stale.push(key) });
    await Promise.all([newer.resync(), older.resync()]);
    const key = "node.cas-probe";
    newer.set(key, new TextEncoder().encode("v9"), Date.now(), "9");
    await newer.flushed();
    // `older` believes the key absent: its put is refused, it reads rv 9 and keeps its rv 5 out.
    older.set(key, new TextEncoder().encode("v5"), Date.now(), "5");
    await older.flushed();
    expect(stale).toEqual([key]);
    const stored = await (await jetstreamManager(nc)).streams.getMessage(`KV_${STATE_BUCKET}`, { last_by_subj: `$KV.${STATE_BUCKET}.${key}` });
    expect(new TextDecoder().decode(stored!.data)).toBe("v9");
    newer.remove(key, Date.now(), "10");
    await newer.flushed();
    newer.stop();
    older.stop();
  });

  it.each(SERVICES)("%s: ensures the stream and bucket, loads the state plane and publishes its own facts", async (s) => {
    const nc = await connectAs(s);
    await ensureEventStream(nc);
    const cache = new StateCache(await ensureStateBucket(nc));
    await cache.start();
    await cache.whenSynced();
    cache.stop();
    const publisher = new EventPublisher(nc, s);
    for (const type of OWN_EVENTS[s]) {
      const ack = await publisher.publish(type, eventFor(type), { id: `${s}-${type.subject}` });
      expect(ack.stream).toBe(EVENTS_STREAM);
    }
  });

  // Every consumer watches a list of kinds, one watch each; a kind with no values at all (no
  // MachineSets on bare metal, no held leases) is told apart from a slow one by listing its keys,
  // which asks for the listing consumer's info.
  it.each(SERVICES.filter((s) => s !== "watcher"))("%s: syncs kinds that hold nothing (one watch per kind)", async (s) => {
    const nc = await connectAs(s);
    const cache = new StateCache(await ensureStateBucket(nc), { kinds: ["node", "machineSet", "nodeSignal"] });
    await cache.start();
    await cache.whenSynced();
    expect(cache.get("node", "worker-0")).toBeDefined();
    expect(cache.list("machineSet")).toEqual([]);
    cache.stop();
  }, 20_000);

  it("lease-coordinator: ensures its replicas' wait-queue bucket, watches it, and creates, reads, rewrites and deletes entries", async () => {
    const nc = await connectAs("lease-coordinator");
    const kv = await ensureLeaseQueueBucket(nc);
    const seen: string[] = [];
    const watch = await kv.watch();
    const watching = (async () => {
      for await (const e of watch) seen.push(`${e.operation} ${e.key}`);
    })();
    const key = leaseQueueKey("worker-0", "mcd/worker-0");
    const created = await kv.create(key, new Uint8Array([1]));
    expect((await kv.get(key))?.revision).toBe(created);
    const updated = await kv.update(key, new Uint8Array([2]), created);
    await kv.delete(key, { previousSeq: updated });
    expect((await kv.status()).bucket).toBe("lockstep-lease-queue-v1");
    await waitFor(() => seen.length === 3, { what: "the watch's three changes" });
    expect(seen).toEqual([`PUT ${key}`, `PUT ${key}`, `DEL ${key}`]);
    watch.stop();
    await watching;
  });

  it("skew-enforcer: reads back the newest fact it published", async () => {
    const nc = await connectAs("skew-enforcer");
    const jsm = await jetstreamManager(nc);
    const stored = await jsm.streams.getMessage(EVENTS_STREAM, { last_by_subj: Events.skewEvaluated.subject });
    expect(stored?.subject).toBe(Events.skewEvaluated.subject);
  });
});

describe("no service can publish outside its own subjects", () => {
  const refused = /permissions violation/i;

  it("the watcher cannot publish lockstep.v1.evt.lease.granted", async () => {
    const nc = await connectAs("watcher");
    const p = new EventPublisher(nc, "watcher");
    await expect(p.publish(Events.leaseGranted, eventFor(Events.leaseGranted), { id: "forged-by-watcher" })).rejects.toThrow(refused);
  });

  it.each([
    ["lease-coordinator", Events.skewEvaluated],
    ["skew-enforcer", Events.bootImageUpdated],
    ["bootimage-updater", Events.insightChanged],
    ["status-aggregator", Events.leaseGranted],
  ].map(([s, t]) => [s, (t as EventType<any>).subject, t]) as Array<[Service, string, EventType<any>]>)("%s cannot publish %s", async (s, _subject, type) => {
    const nc = await connectAs(s);
    await expect(new EventPublisher(nc, s).publish(type, eventFor(type), { id: `forged-by-${s}` })).rejects.toThrow(refused);
  });

  it.each(SERVICES.filter((s) => s !== "watcher"))("%s cannot write the state bucket", async (s) => {
    const nc = await connectAs(s);
    const kv = await ensureStateBucket(nc);
    await expect(kv.put("node.forged", new Uint8Array([1]))).rejects.toThrow(refused);
  });

  it("no service can delete the event stream", async () => {
    const nc = await connectAs("status-aggregator");
    const jsm = await jetstreamManager(nc);
    await expect(jsm.streams.delete(EVENTS_STREAM)).rejects.toThrow(refused);
  });

  it("refused messages never reach the stream", async () => {
    const nc = await connectAs("skew-enforcer");
    const jsm = await jetstreamManager(nc);
    const info = await jsm.streams.info(EVENTS_STREAM, { subjects_filter: ">" });
    const subjects = Object.keys(info.state.subjects ?? {}).sort();
    expect(subjects).toEqual(SERVICES.flatMap((s) => OWN_EVENTS[s].map((e) => e.subject)).sort());
    // Every violation the server logged is one of the forgeries above: the services' own work
    // (stream and bucket set-up, KV watch, facts, read-back) needed nothing beyond their grants.
    const violations = () => [...nats.log().matchAll(/Publish Violation - User "lockstep-([a-z-]+)", Subject "([^"]+)"/g)].map((m) => `${m[1]} ${m[2]}`).sort();
    const forgeries = [
      "watcher lockstep.v1.evt.lease.granted",
      "lease-coordinator lockstep.v1.evt.skew.evaluated",
      "skew-enforcer lockstep.v1.evt.bootimage.updated",
      "bootimage-updater lockstep.v1.evt.insight.changed",
      "status-aggregator lockstep.v1.evt.lease.granted",
      ...SERVICES.filter((s) => s !== "watcher").map((s) => `${s} $KV.lockstep-state-v1.node.forged`),
      "status-aggregator $JS.API.STREAM.DELETE.LOCKSTEP_EVENTS_V1",
    ].sort();
    // The client hears of a refusal before the server's log line has come through its pipe to us.
    await waitFor(() => violations().length >= forgeries.length, { timeoutMs: 10_000, what: "the server's log of every refusal" }).catch(() => {});
    expect(violations()).toEqual(forgeries);
    expect(nats.log()).not.toMatch(/Subscription Violation/);
  });
});
