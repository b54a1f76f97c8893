import { describe, expect, it } from "vitest";
import { planSlot, type Scope } from "./capacity.js";
import type { SlotView } from "./occupancy.js";
import { testPolicy } from "./fixtures.js";
import type { LeaseRecord } from "./lease-record.js";

const policy = testPolicy();
const scope: Scope = { key: "pool.worker", kind: "pool", name: "worker", limit: 2, members: new Set(["a1", "a2", "a3", "b5"]), message: "pool worker: maxUnavailable 2" };
const slot = (index: number, node: string, status: "held" | "expired"): SlotView => ({
  rec: { name: `lockstep-slot.pool.worker.${index}`, slotIndex: index, node, holder: `ctl-${node}`, kind: "slot", scope: "pool.worker" } as LeaseRecord,
  validity: status === "held" ? { status, expiresInSeconds: 10, adminHold: false, futureRenewTime: false } : { status, why: "not renewed" },
});
const plan = (slots: SlotView[], notReady: string[], held: string[]) =>
  planSlot(scope, "a1", "ctl-a1", slots, { disruptedWithoutLease: new Set(notReady) }, new Set(held), 0, policy);

describe("budget slots", () => {
  it("two replicas that disagree on a NotReady node's expired slot still count it once each way, so their grants collide", () => {
    // Replica A still sees b5's slot 0 held: b5 counted there, a1 goes to slot 1.
    const a = plan([slot(0, "b5", "held")], ["b5"], ["b5"]);
    expect(a).toMatchObject({ kind: "take", index: 1 });
    // Replica B sees slot 0 expired, but b5 is still NotReady: the slot keeps counting it (it is not
    // taken over), so B also goes to slot 1 and one of the two writes fails its CAS.
    const b = plan([slot(0, "b5", "expired")], ["b5"], []);
    expect(b).toMatchObject({ kind: "take", index: 1 });
  });

  it("a released slot of a node that is still NotReady keeps counting it (a release landing after another replica decided)", () => {
    const released = { ...slot(0, "b5", "expired"), validity: { status: "free", why: "no holder" } } as SlotView;
    released.rec = { ...released.rec, holder: "" };
    // The other replica decided before the release: b5 in slot 0, it aims at slot 1. So must this one.
    expect(plan([released], ["b5"], [])).toMatchObject({ kind: "take", index: 1 });
  });

  it("an expired slot of a node that is no longer disrupted is free again", () => {
    expect(plan([slot(0, "a2", "expired"), slot(1, "a3", "held")], [], ["a3"])).toMatchObject({ kind: "take", index: 0 });
  });

  it("a NotReady node without a slot, and one holding an expired slot, both block the last slot", () => {
    expect(plan([slot(0, "a3", "held")], ["b5"], ["a3"]).kind).toBe("blocked");
    expect(plan([slot(0, "a3", "held"), slot(1, "b5", "expired")], ["b5"], ["a3"]).kind).toBe("blocked");
  });
});
