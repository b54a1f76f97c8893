import { Metadata } from "@grpc/grpc-js";
import { describe, expect, it } from "vitest";
import { OperationType, PreemptionKind } from "./gen/lockstep/lease/v1/lease.js";
import { RENEW_REFUSAL_TRAILER, renewRefusalMetadata, renewRefusalOf } from "./renew-refusal.js";

describe("renew refusal trailer", () => {
  it("carries the preemption as fields", () => {
    const time = new Date("2026-11-27T10:00:00Z");
    const md = renewRefusalMetadata({
      code: "Preempted",
      message: "preempted by admin (Maintenance)",
      current: {
        node: "w1", namespace: "ns", leaseName: "w1", holder: "mcd", operation: OperationType.OPERATION_TYPE_UPDATE, reason: "", acquireTime: undefined,
        renewTime: undefined, durationSeconds: 30, transitions: 0, foreign: false, resourceVersion: "7", preemptedBy: "admin (Maintenance)", preemptTime: time,
        preemptionRequestedBy: "", preemptionWithdrawn: undefined,
        preemption: { kind: PreemptionKind.PREEMPTION_KIND_FORCED, holder: "admin", operation: OperationType.OPERATION_TYPE_MAINTENANCE, time, reason: "disk swap" },
      },
    });
    const back = renewRefusalOf({ metadata: md });
    expect(back?.code).toBe("Preempted");
    expect(back?.current?.preemption).toEqual({ kind: PreemptionKind.PREEMPTION_KIND_FORCED, holder: "admin", operation: OperationType.OPERATION_TYPE_MAINTENANCE, time, reason: "disk swap" });
  });

  it("is undefined without the trailer, or with bytes that do not decode", () => {
    expect(renewRefusalOf({ metadata: new Metadata() })).toBeUndefined();
    expect(renewRefusalOf(undefined)).toBeUndefined();
    const bad = new Metadata();
    bad.set(RENEW_REFUSAL_TRAILER, Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f]));
    expect(renewRefusalOf({ metadata: bad })).toBeUndefined();
  });
});
