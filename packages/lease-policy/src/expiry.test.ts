import { describe, expect, it } from "vitest";
import { leaseValidity } from "./expiry.js";
import { testPolicy } from "./fixtures.js";
import type { LeaseRecord } from "./lease-record.js";

const policy = testPolicy();
const NOW = Date.parse("2026-11-21T10:00:00Z");
const rec = (fields: Partial<LeaseRecord>): LeaseRecord => ({
  namespace: "n", name: "w1", resourceVersion: "1", kind: "node", node: "w1", owned: true, holder: "h", durationSeconds: 60,
  acquireTime: new Date(NOW), renewTime: new Date(NOW), renewTimeRaw: "", transitions: 0, operation: "Update", reason: "",
  preemptionRequestedBy: "", preemptedBy: "", preemptorHolder: "", preemptedAt: undefined, preemptedReason: "", preemptionWithdrawnBy: "", preemptionWithdrawnAt: undefined, releasedAt: undefined, scope: "", slotIndex: -1, corrupt: undefined, annotations: {}, ...fields,
});

describe("lease expiry", () => {
  it("counts from first observation, not from renewTime", () => {
    const old = rec({ renewTime: new Date(0) });
    expect(leaseValidity(old, NOW, NOW + 63_000, policy).status).toBe("held");
    expect(leaseValidity(old, NOW, NOW + 63_001, policy).status).toBe("expired");
  });
  it("keeps a future renewTime held, up to duration + maxClockSkew of observation", () => {
    const future = rec({ renewTime: new Date(NOW + 120_000) });
    const v = leaseValidity(future, NOW, NOW + 100_000, policy);
    expect(v).toMatchObject({ status: "held", futureRenewTime: true });
    expect(leaseValidity(future, NOW, NOW + 661_000, policy).status).toBe("expired");
  });
  it("treats no holder and corrupt leases as free, and admin holds as never expiring", () => {
    expect(leaseValidity(rec({ holder: "" }), NOW, NOW, policy).status).toBe("free");
    expect(leaseValidity(rec({ corrupt: "no renewTime" }), NOW, NOW, policy)).toEqual({ status: "free", why: "corrupt lease: no renewTime" });
    expect(leaseValidity(rec({ holder: "kubeadm-x" }), NOW, NOW + 1e9, policy)).toMatchObject({ status: "held", adminHold: true });
  });
});
