import type { LeaseState } from "@lockstep/contracts";
import { describe, expect, it } from "vitest";
import { testPolicy } from "@lockstep/lease-policy/fixtures";
import { encodeLease, leaseStateFromObject, slotLeaseName } from "@lockstep/lease-policy";
import { LeaseIndex, type IndexChange } from "./lease-index.js";

const NS = "lockstep-leases";
const policy = testPolicy({ namespace: NS });
const T0 = Date.parse("2026-11-21T10:00:00Z");

function lease(name: string, rv: string, o: { holder?: string; node?: string; scope?: string } = {}): LeaseState {
  const kind = o.scope ? "slot" : "node";
  const body = encodeLease({
    namespace: NS, name, kind, node: o.node ?? name, nodeUid: "", holder: o.holder ?? "", operation: "Update", reason: "test",
    durationSeconds: 60, acquireTime: new Date(T0), renewTime: new Date(T0), transitions: 0, resourceVersion: rv, scope: o.scope,
  });
  return leaseStateFromObject(body);
}

describe("LeaseIndex", () => {
  it("a decision reads the node's leases, its scopes' slots and holds on scope members, by either walk", () => {
    const idx = new LeaseIndex(policy, () => T0);
    idx.fromPlane(NS, "w1", lease("w1", "1"));
    idx.fromPlane(NS, "w2", lease("w2", "2", { holder: "a" }));
    idx.fromPlane(NS, "w3", lease("w3", "3", { holder: "b" }));
    idx.fromPlane(NS, "x1", lease("x1", "4", { holder: "c" }));
    const slot = slotLeaseName("pool.worker", 0);
    idx.fromPlane(NS, slot, lease(slot, "5", { holder: "a", node: "w2", scope: "pool.worker" }));
    const names = (members: Set<string>) => idx.recordsFor("w1", ["pool.worker"], [members]).map((r) => r.name).sort();
    const expected = [slot, "w1", "w2", "w3"].sort();
    // 2 members < 3 holds: members are looked up; 4 members >= 3 holds: holds are walked.
    expect(names(new Set(["w2", "w3"]))).toEqual(expected);
    expect(names(new Set(["w1", "w2", "w3", "w9"]))).toEqual(expected);
    expect(idx.recordsFor("w1", [], []).map((r) => r.name)).toEqual(["w1"]);
  });

  it("keeps the record it decoded from its own write when the state plane echoes that version", () => {
    const idx = new LeaseIndex(policy, () => T0);
    idx.fromPlane(NS, "w1", lease("w1", "1"));
    const changes: IndexChange[] = [];
    idx.onChange((c) => changes.push(c));
    idx.fromApi(lease("w1", "2", { holder: "a" }));
    const written = idx.get(NS, "w1")!;
    expect(written.rec.holder).toBe("a");
    expect(changes.map((c) => c.type)).toEqual(["MODIFIED"]);
    idx.fromPlane(NS, "w1", lease("w1", "2", { holder: "a" }));
    expect(idx.get(NS, "w1")).toBe(written);
    expect(changes).toHaveLength(1);
    // A newer version from the plane (another replica's write) is decoded and reported.
    idx.fromPlane(NS, "w1", lease("w1", "3", { holder: "b" }));
    expect(idx.get(NS, "w1")!.rec.holder).toBe("b");
    expect(changes.map((c) => c.type)).toEqual(["MODIFIED", "MODIFIED"]);
  });
});
