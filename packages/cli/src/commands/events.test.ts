// `lockstep events` against a real nats-server: the stream printed in order, --since and --subject
// filter, -o json lines parse, --follow prints what comes after it started.
import { closeBus, connectBus, ensureEventStream, EventPublisher } from "@lockstep/bus";
import { Events, OperationType } from "@lockstep/contracts";
import { startNatsServer, waitFor, type NatsServer } from "@lockstep/testing";
import type { NatsConnection } from "@nats-io/transport-node";
import { InvalidArgumentError } from "commander";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { durationArg, factMatcher, streamEvents } from "./events.js";

let srv: NatsServer;
let nc: NatsConnection;
let pub: EventPublisher;
const HOUR = 3_600_000;
const T0 = Date.now();

beforeAll(async () => {
  srv = await startNatsServer();
  nc = await connectBus({ servers: srv.url, name: "cli-events-test" });
  await ensureEventStream(nc);
  pub = new EventPublisher(nc, "test");
  const lease = { node: "worker-1", holder: "admin", operation: OperationType.OPERATION_TYPE_MAINTENANCE };
  await pub.publish(Events.leaseGranted, Events.leaseGranted.codec.fromPartial({ lease }), { occurredAt: new Date(T0 - 2 * HOUR) });
  await pub.publish(Events.leaseDenied, Events.leaseDenied.codec.fromPartial({ node: "worker-1", requester: "mco", reason: "held by admin" }));
  await pub.publish(Events.leaseReleased, Events.leaseReleased.codec.fromPartial({ lease }));
});

afterAll(async () => {
  await closeBus(nc);
  await srv.stop();
});

async function run(o: Partial<Parameters<typeof streamEvents>[0]> = {}): Promise<string[]> {
  const out: string[] = [];
  await streamEvents({ nats: srv.url, output: "text", write: (t) => out.push(t), ...o });
  return out;
}

describe("lockstep events", () => {
  it("prints every event in order, one sentence each", async () => {
    const lines = await run();
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/lease\.granted\s+lease granted: worker-1 to admin \(MAINTENANCE\)/);
    expect(lines[1]).toContain("lease denied: worker-1 for mco");
    expect(lines[2]).toContain("lease released: worker-1 by admin");
  });

  it("--since keeps only recent events (by the stream's time); nothing newer prints nothing", async () => {
    // All three were stored just now: the stream's time, not the fact's occurredAt, is what --since reads.
    expect(await run({ sinceMs: HOUR })).toHaveLength(3);
    expect(await run({ sinceMs: 1, now: () => Date.now() + HOUR })).toEqual([]);
  });

  it("--subject filters facts by glob; -o json lines parse", async () => {
    const lines = await run({ subject: "lease.*ed", output: "json" });
    const parsed = lines.map((l) => JSON.parse(l));
    expect(parsed.map((p) => p.fact)).toEqual(["lease.granted", "lease.denied", "lease.released"]);
    expect(parsed[0]).toMatchObject({ subject: "lockstep.v1.evt.lease.granted", message: { lease: { node: "worker-1", holder: "admin" } } });
    expect(await run({ subject: "*.denied" })).toHaveLength(1);
    expect(await run({ subject: "bootimage.>" })).toEqual([]);
  });

  it("--follow prints new events as they come, until stopped", async () => {
    const out: string[] = [];
    const abort = new AbortController();
    const done = streamEvents({ nats: srv.url, output: "text", follow: true, subject: "bootimage.*", write: (t) => out.push(t), signal: abort.signal });
    await pub.publish(Events.bootImageSkipped, Events.bootImageSkipped.codec.fromPartial({ machineSet: { name: "ms-a", namespace: "ns" }, reason: "not selected" }));
    await waitFor(() => out.length === 1, { explain: () => `printed so far: ${JSON.stringify(out)}` });
    expect(out[0]).toContain("boot image skipped: MachineSet ms-a: not selected");
    abort.abort();
    await done;
  });

  it("refuses what is not a duration; matches globs token by token", () => {
    expect(durationArg("1h30m")).toBe(90 * 60_000);
    expect(durationArg("90s")).toBe(90_000);
    for (const bad of ["10", "10x", "m10", "1h 30m"]) expect(() => durationArg(bad), bad).toThrow(InvalidArgumentError);
    expect(factMatcher("lease.*")("lease.granted")).toBe(true);
    expect(factMatcher("lease.*")("leasex.granted")).toBe(false);
    expect(factMatcher("*")("lease.granted")).toBe(false);
    expect(factMatcher(">")("lease.granted")).toBe(true);
  });
});
