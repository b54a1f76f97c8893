import { encode, MachineSetState, NodeState } from "@lockstep/contracts";
import { describe, expect, it } from "vitest";
import { SnapshotEncoder } from "./snapshot-encoder.js";

describe("SnapshotEncoder", () => {
  it("encodes each snapshot exactly as a fresh writer would, one after another", () => {
    const enc = new SnapshotEncoder();
    const a = NodeState.fromPartial({ name: "a", labels: { "node-role.kubernetes.io/worker": "" }, unschedulable: true });
    const b = MachineSetState.fromPartial({ name: "b", namespace: "openshift-machine-api", replicas: 3 });
    expect([...enc.encode(NodeState, a)]).toEqual([...encode(NodeState, a)]);
    expect([...enc.encode(MachineSetState, b)]).toEqual([...encode(MachineSetState, b)]);
    expect([...enc.encode(NodeState, a)]).toEqual([...encode(NodeState, a)]);
  });

  it("after an encode that throws, the next snapshot carries none of the failed one's bytes", () => {
    const enc = new SnapshotEncoder();
    const bad = MachineSetState.fromPartial({ name: "bad", namespace: "ns", replicas: 1e12 }); // not an int32
    expect(() => enc.encode(MachineSetState, bad)).toThrow(/int32/);
    const good = MachineSetState.fromPartial({ name: "good", namespace: "ns", replicas: 2 });
    const bytes = enc.encode(MachineSetState, good);
    expect([...bytes]).toEqual([...encode(MachineSetState, good)]);
    expect(MachineSetState.decode(bytes)).toEqual(good);
  });
});
