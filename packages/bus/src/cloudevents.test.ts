// CloudEvents binary content mode on the event stream: a message read back from JetStream is a
// valid CloudEvent to the CloudEvents SDK for JavaScript (its binary-mode deserializer), with the
// attributes of contracts' cloudevents.ts, and Lockstep's own headers are still there.
import { jetstream } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { EVENTS_STREAM, Events, HEADER_TYPE, OperationType } from "@lockstep/contracts";
import { startNatsServer, type NatsServer } from "@lockstep/testing";
import { HTTP, ValidationError } from "cloudevents";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeBus, connectBus } from "./connection.js";
import { EventPublisher } from "./publish.js";
import { ensureEventStream } from "./setup.js";

let srv: NatsServer;
let nc: NatsConnection;

beforeAll(async () => {
  srv = await startNatsServer();
  nc = await connectBus({ servers: srv.url, name: "cloudevents-test" });
  await ensureEventStream(nc);
});

afterAll(async () => {
  await closeBus(nc);
  await srv.stop();
});

/** The stored message of `seq`, its NATS headers as a plain map (what an HTTP or NATS binding hands the SDK). */
async function stored(seq: number): Promise<{ headers: Record<string, string>; body: Buffer }> {
  const m = await (await jetstream(nc).jetstreamManager()).streams.getMessage(EVENTS_STREAM, { seq });
  const headers: Record<string, string> = {};
  for (const [k, v] of m!.header ?? []) headers[k.toLowerCase()] = v[0]!;
  return { headers, body: Buffer.from(m!.data) };
}

describe("CloudEvents binary content mode", () => {
  it("each published event is a CloudEvent to the SDK: id, source, type, time, subject, content type, schema", async () => {
    const observed: string[] = [];
    const pub = new EventPublisher(nc, "lease-coordinator", (t) => observed.push(t.subject));
    const occurredAt = new Date("2026-03-01T10:00:00.000Z");
    const lease = { node: "worker-1", holder: "admin", operation: OperationType.OPERATION_TYPE_MAINTENANCE };
    const ack = await pub.publish(Events.leaseGranted, Events.leaseGranted.codec.fromPartial({ lease }), { id: "ce-1", occurredAt });
    const { headers, body } = await stored(ack.seq);

    const ce = HTTP.toEvent({ headers, body }) as import("cloudevents").CloudEvent<Buffer>;
    expect(ce.validate()).toBe(true);
    expect({ specversion: ce.specversion, id: ce.id, source: ce.source, type: ce.type, time: ce.time, subject: ce.subject, datacontenttype: ce.datacontenttype, dataschema: ce.dataschema }).toEqual({
      specversion: "1.0",
      id: "ce-1",
      source: "/lockstep/lease-coordinator",
      type: "io.lockstep.lease.granted.v1",
      time: "2026-03-01T10:00:00.000Z",
      subject: "worker-1",
      datacontenttype: "application/protobuf",
      dataschema: "proto:lockstep.events.v1.LeaseGranted",
    });
    // The data is the protobuf payload, decodable with the message dataschema names.
    const decoded = Events.leaseGranted.codec.decode(new Uint8Array(ce.data_base64 ? Buffer.from(ce.data_base64, "base64") : (ce.data as Buffer)));
    expect(decoded.lease?.holder).toBe("admin");
    expect(headers[HEADER_TYPE.toLowerCase()]).toBe("lockstep.events.v1.LeaseGranted");
    expect(headers["nats-msg-id"]).toBe("ce-1");
    expect(observed).toEqual([Events.leaseGranted.subject]);
  });

  it("names MachineSets namespace/name as the subject; a repeat id is not observed twice", async () => {
    const observed: string[] = [];
    const pub = new EventPublisher(nc, "bootimage-updater", (t) => observed.push(t.subject));
    const msg = Events.bootImageSkipped.codec.fromPartial({ machineSet: { name: "worker-a", namespace: "openshift-machine-api" }, reason: "not selected" });
    const ack = await pub.publish(Events.bootImageSkipped, msg, { id: "ce-2" });
    await pub.publish(Events.bootImageSkipped, msg, { id: "ce-2" });
    const ce = HTTP.toEvent(await stored(ack.seq)) as import("cloudevents").CloudEvent;
    expect([ce.type, ce.subject]).toEqual(["io.lockstep.bootimage.skipped.v1", "openshift-machine-api/worker-a"]);
    expect(observed).toHaveLength(1);
  });

  it("the SDK refuses a message without the headers (so the check above can fail)", () => {
    expect(() => HTTP.toEvent({ headers: { "content-type": "application/protobuf" }, body: Buffer.from([1]) })).toThrow(ValidationError);
  });
});
