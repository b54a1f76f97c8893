import { describe, expect, it } from "vitest";
import { silentLogger } from "@lockstep/runtime";
import type { OutgoingEvent } from "./events.js";
import { EventOutbox } from "./outbox.js";

const ev = (id: string): OutgoingEvent => ({ kind: "leaseGranted", id, message: {} });
const turn = () => new Promise((r) => setImmediate(r));

describe("EventOutbox", () => {
  it("publishes after the current turn, everything emitted in it together", async () => {
    const sent: string[] = [];
    const outbox = new EventOutbox({ logger: silentLogger(), publish: async (e) => void sent.push(e.id) });
    outbox.emit([ev("a")]);
    outbox.emit([ev("b"), ev("c")]);
    expect(sent).toEqual([]);
    await turn();
    expect(sent).toEqual(["a", "b", "c"]);
    await outbox.drained();
    expect(outbox.pending).toBe(0);
  });

  it("retries a failed publish with the same id until it succeeds", async () => {
    const attempts: string[] = [];
    let failures = 2;
    const outbox = new EventOutbox({
      logger: silentLogger(),
      retryBaseMs: 1,
      publish: async (e) => {
        attempts.push(e.id);
        if (failures-- > 0) throw new Error("no JetStream ack");
      },
    });
    outbox.emit([ev("granted/1")]);
    await outbox.drained();
    expect(attempts).toEqual(["granted/1", "granted/1", "granted/1"]);
  });

  it("by default outlasts a stream-leader change: 11 failed attempts, then the same id lands", async () => {
    const attempts: string[] = [];
    let failures = 11;
    const outbox = new EventOutbox({
      logger: silentLogger(),
      retryBaseMs: 1,
      maxRetryMs: 2,
      publish: async (e) => {
        attempts.push(e.id);
        if (failures-- > 0) throw new Error("no JetStream stream takes subject lockstep.v1.evt.lease.granted");
      },
    });
    outbox.emit([ev("granted/2")]);
    await outbox.drained();
    expect(attempts).toEqual(Array(12).fill("granted/2"));
  });

  it("drops an event after the last attempt and keeps publishing others", async () => {
    let calls = 0;
    const sent: string[] = [];
    const outbox = new EventOutbox({
      logger: silentLogger(),
      retryBaseMs: 1,
      maxAttempts: 3,
      publish: async (e) => {
        if (e.id === "x") {
          calls++;
          throw new Error("down");
        }
        sent.push(e.id);
      },
    });
    outbox.emit([ev("x")]);
    await outbox.drained();
    expect(calls).toBe(3);
    outbox.emit([ev("y")]);
    await outbox.drained();
    expect(sent).toEqual(["y"]);
    expect(outbox.pending).toBe(0);
  });

  it("keeps at most `capacity` events, dropping the oldest", async () => {
    const sent: string[] = [];
    const outbox = new EventOutbox({ logger: silentLogger(), capacity: 2, publish: async (e) => void sent.push(e.id) });
    outbox.emit([ev("1"), ev("2"), ev("3")]);
    await outbox.drained();
    expect(sent).toEqual(["2", "3"]);
  });
});
