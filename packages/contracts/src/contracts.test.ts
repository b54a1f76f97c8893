import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decode, encode, DecodeError } from "./codec.js";
import { decodeEvent, EVENT_SUBJECTS, Events, eventBySubject, eventByTypeName, EventTypeError } from "./events.js";
import { OperationType } from "./gen/lockstep/lease/v1/lease.js";
import { NodeState } from "./gen/lockstep/state/v1/node.js";
import { HEARTBEAT_KEY, leaseQueueKey, nodeSignalKey, parseLeaseQueueKey, parseNodeSignalKey, parseStateKey, stateKey, StateKinds, SYNCED_KEY } from "./state.js";

const KV_KEY = /^[-/_=.a-zA-Z0-9]+$/;

describe("event catalogue", () => {
  it("spells every subject under the stream's filter with unique subjects and types", () => {
    const all = Object.values(Events);
    expect(new Set(all.map((e) => e.subject)).size).toBe(all.length);
    expect(new Set(all.map((e) => e.typeName)).size).toBe(all.length);
    for (const e of all) {
      expect(e.subject.startsWith(EVENT_SUBJECTS.slice(0, -1))).toBe(true);
      expect(e.subject.split(".")).toHaveLength(5);
      expect(eventBySubject(e.subject)).toBe(e);
      expect(eventByTypeName(e.typeName)).toBe(e);
    }
  });

  it("round-trips a typed event", () => {
    const msg = Events.leaseGranted.codec.fromPartial({
      meta: { id: "e1", source: "test", occurredAt: new Date("2026-01-01T00:00:00Z") },
      lease: { node: "n1", holder: "h", operation: OperationType.OPERATION_TYPE_UPDATE },
    });
    const back = decode(Events.leaseGranted.codec, Events.leaseGranted.typeName, encode(Events.leaseGranted.codec, msg));
    expect(back).toEqual(msg);
  });

  it("reports a malformed payload with its type", () => {
    expect(() => decode(NodeState, "lockstep.state.v1.NodeState", new Uint8Array([0xff, 0xff, 0xff]))).toThrow(DecodeError);
  });
});

describe("state keys", () => {
  it("round-trips cluster-scoped and namespaced keys for any names", () => {
    fc.assert(
      fc.property(fc.constantFrom(...(Object.keys(StateKinds) as (keyof typeof StateKinds)[])), fc.string(), fc.string(), (kind, ns, name) => {
        const namespaced = StateKinds[kind].namespaced;
        const key = namespaced ? stateKey(kind, name, ns) : stateKey(kind, name);
        expect(key).toMatch(KV_KEY);
        expect(parseStateKey(key)).toEqual(namespaced ? { kind, namespace: ns, name } : { kind, name });
      }),
    );
  });

  it("spells the sync marker as meta.synced", () => {
    expect(stateKey("meta", "synced")).toBe(SYNCED_KEY);
  });

  it("spells the watcher's heartbeat as heartbeat.watcher, a key of its own kind", () => {
    expect(stateKey("heartbeat", "watcher")).toBe(HEARTBEAT_KEY);
    expect(parseStateKey(HEARTBEAT_KEY)).toEqual({ kind: "heartbeat", name: "watcher" });
  });

  it("rejects foreign and malformed keys", () => {
    expect(parseStateKey("other.x")).toBeUndefined();
    expect(parseStateKey("node.a.b")).toBeUndefined();
    expect(parseStateKey("node.a_Z")).toBeUndefined();
    expect(() => stateKey("lease", "x")).toThrow(/namespace is required/);
  });

  it("names a node signal by its source's kind, namespace and name, reversibly", () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z][A-Za-z0-9]*$/), fc.string(), fc.string(), (kind, namespace, name) => {
        const key = nodeSignalKey({ kind, namespace, name });
        expect(key).toMatch(KV_KEY);
        expect(key.startsWith("signal.")).toBe(true);
        expect(parseNodeSignalKey(key)).toEqual({ kind, namespace, name });
      }),
    );
    // The same name under two kinds is two keys.
    expect(nodeSignalKey({ kind: "SelfNodeRemediation", namespace: "m", name: "w1" })).not.toBe(nodeSignalKey({ kind: "FenceAgentsRemediation", namespace: "m", name: "w1" }));
    expect(parseNodeSignalKey(stateKey("node", "w1"))).toBeUndefined();
    expect(() => nodeSignalKey({ kind: "", namespace: "", name: "x" })).toThrow(/kind/);
  });

  it("names a lease waiter by node and holder, reversibly (holders carry ':' and '/')", () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (node, holder) => {
        const key = leaseQueueKey(node, holder);
        expect(key).toMatch(KV_KEY);
        expect(parseLeaseQueueKey(key)).toEqual({ node, holder });
      }),
    );
    expect(leaseQueueKey("w1", "system:serviceaccount:ops:robot/t-1")).toBe("waiter.w1.system_3Aserviceaccount_3Aops_3Arobot_2Ft-1");
    expect(parseLeaseQueueKey(stateKey("node", "w1"))).toBeUndefined();
    expect(parseLeaseQueueKey("waiter.a_Z.b")).toBeUndefined();
  });
});

describe("decodeEvent", () => {
  const msg = Events.updateCompleted.codec.fromPartial({ version: "4.16.3", pools: ["worker"], nodes: 3 });
  const bytes = encode(Events.updateCompleted.codec, msg);

  it("decodes when subject and type header agree", () => {
    const d = decodeEvent(Events.updateCompleted.subject, Events.updateCompleted.typeName, bytes);
    expect(d.type).toBe(Events.updateCompleted);
    expect(d.message).toEqual(msg);
  });

  it("refuses a missing or wrong type header and unknown subjects", () => {
    expect(() => decodeEvent(Events.updateCompleted.subject, undefined, bytes)).toThrow(EventTypeError);
    expect(() => decodeEvent(Events.updateCompleted.subject, Events.leaseGranted.typeName, bytes)).toThrow(/expected lockstep.events.v1.UpdateCompleted/);
    expect(() => decodeEvent("lockstep.v1.evt.nope.happened", Events.updateCompleted.typeName, bytes)).toThrow(/unknown event subject/);
  });
});
