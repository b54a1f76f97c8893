import { OperationType, type NodeLease } from "@lockstep/contracts";
import { describe, expect, it } from "vitest";
import { DEFAULT_POLICY } from "@lockstep/lease-policy";
import { DEFAULT_ACTS_FOR, requesterOf, verdict } from "./verdict.js";

const NOW = Date.parse("2026-11-25T17:00:00Z");
const MCO = "system:serviceaccount:openshift-machine-config-operator";
const lease = (fields: Partial<NodeLease> = {}): NodeLease => ({
  node: "w1", namespace: "lockstep-leases", leaseName: "w1", holder: "alice", operation: OperationType.OPERATION_TYPE_MAINTENANCE, reason: "disk swap",
  acquireTime: new Date(NOW - 60_000), renewTime: new Date(NOW - 60_000), durationSeconds: 3600, transitions: 0, foreign: false, resourceVersion: "1",
  preemptedBy: "", preemptTime: undefined, preemptionRequestedBy: "", ...fields,
});
/** A hold as the coordinator judges it: renewed a minute ago for an hour, so 59 minutes left. */
const hold = (fields: Partial<NodeLease> = {}, expiresInSeconds = 3540) => ({ lease: lease(fields), expiresInSeconds, adminHold: !Number.isFinite(expiresInSeconds) });
const user = (username: string, groups: string[] = []) => ({ username, uid: "", groups });
const update = { node: "w1", operation: "Update" as const, what: "start an update of w1" };
const policy = DEFAULT_POLICY;

describe("verdict", () => {
  it("refuses the MCO's update of a node under another's maintenance, naming holder, operation and term", () => {
    const v = verdict(update, hold(), requesterOf(user(`${MCO}:machine-config-controller`), DEFAULT_ACTS_FOR, []), NOW, policy);
    expect(v).toMatchObject({
      allowed: false,
      message: `node w1 is leased to alice for Maintenance ("disk swap") until 2026-11-25T17:59:00.000Z (59m left): ${MCO}:machine-config-controller may not start an update of w1 until it is released or expires [MaintenanceFlagged]`,
    });
  });

  it("lets a holder's own requests pass, with a suffix too, and those of whom it acts for", () => {
    expect(verdict(update, hold({ holder: "alice/ticket-42" }), requesterOf(user("alice"), [], []), NOW, policy)).toEqual({ allowed: true });
    const mcoLease = hold({ holder: `${MCO}:machine-config-controller/w1`, operation: OperationType.OPERATION_TYPE_UPDATE });
    const drain = { node: "w1", operation: "Drain" as const, what: "evict pod a/b" };
    expect(verdict(drain, mcoLease, requesterOf(user(`${MCO}:machine-config-daemon`), DEFAULT_ACTS_FOR, []), NOW, policy)).toEqual({ allowed: true });
    expect(verdict(drain, mcoLease, requesterOf(user("bob"), DEFAULT_ACTS_FOR, []), NOW, policy)).toMatchObject({ allowed: false, message: expect.stringContaining("[Held]") });
  });

  it("acts-for rules match groups too", () => {
    const r = requesterOf(user("robot", ["ops"]), [{ subject: "group:ops", holders: ["alice"] }], []);
    expect(verdict(update, hold(), r, NOW, policy)).toEqual({ allowed: true });
  });

  it("allows anything on a node nothing holds (no lease, released, expired: the coordinator judges which)", () => {
    expect(verdict(update, undefined, requesterOf(user("bob"), [], []), NOW, policy)).toEqual({ allowed: true });
  });

  it("names an admin hold as lasting until released", () => {
    const v = verdict(update, hold({ holder: "kubeadm-ops" }, Number.POSITIVE_INFINITY), requesterOf(user("bob"), [], []), NOW, policy);
    expect(v).toMatchObject({ allowed: false, message: expect.stringContaining("node w1 is leased to kubeadm-ops for Maintenance (\"disk swap\") until it is released (an admin hold)") });
  });

  it("lets break-glass through, with an audit line saying what it overrode", () => {
    const v = verdict(update, hold(), requesterOf(user("oncall", ["lockstep:break-glass"]), [], ["lockstep:break-glass"]), NOW, policy);
    expect(v).toEqual({ allowed: true, audit: expect.stringMatching(/^break-glass: oncall may start an update of w1 although node w1 is leased to alice/) });
  });

  it("judges a power-on or a remediation only against the holds it names (and admin holds)", () => {
    const powerOn = { node: "w1", operation: "PowerOff" as const, what: "power on bare-metal host h1", onlyWhileHeldFor: ["PowerOff", "Maintenance"] as const };
    const bob = requesterOf(user("bob"), [], []);
    expect(verdict(powerOn, hold(), bob, NOW, policy)).toMatchObject({ allowed: false, held: expect.stringMatching(/^node w1 is leased to alice for Maintenance/), requester: "bob" });
    expect(verdict(powerOn, hold({ operation: OperationType.OPERATION_TYPE_POWER_OFF }), bob, NOW, policy)).toMatchObject({ allowed: false, message: expect.stringContaining("[Held]") });
    expect(verdict(powerOn, hold({ operation: OperationType.OPERATION_TYPE_UPDATE }), bob, NOW, policy)).toEqual({ allowed: true });
    expect(verdict(powerOn, hold({ operation: OperationType.OPERATION_TYPE_UPDATE }, Number.POSITIVE_INFINITY), bob, NOW, policy)).toMatchObject({ allowed: false });
    const oncall = requesterOf(user("oncall", ["lockstep:break-glass"]), [], ["lockstep:break-glass"]);
    expect(verdict(powerOn, hold(), oncall, NOW, policy)).toEqual({ allowed: true, audit: expect.stringMatching(/^break-glass: oncall may power on bare-metal host h1 although node w1 is leased to alice/) });
  });
});
