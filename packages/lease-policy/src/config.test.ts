import { describe, expect, it } from "vitest";
import { DEFAULT_POLICY, validatePolicy } from "./config.js";

describe("policy config", () => {
  it("the default is valid", () => {
    expect(validatePolicy().errors).toEqual([]);
    expect(validatePolicy().policy).toEqual(DEFAULT_POLICY);
  });
  it("lists every problem at once", () => {
    const { errors } = validatePolicy({
      namespace: "kube-node-lease",
      maxDurationSeconds: 0,
      forceTakeover: { Fence: ["Update"], Update: ["Maintenance"] },
      poolBoundedOperations: ["Update", "Nap" as never],
    });
    expect(errors).toEqual(expect.arrayContaining([
      "namespace kube-node-lease is owned by the kubelet's heartbeats",
      "maxDurationSeconds must be a positive integer",
      "forceTakeover.Fence: fencing never takes a node from a valid holder",
      "forceTakeover.Update: a maintenance hold cannot be preempted",
      'poolBoundedOperations: unknown operation "Nap" (known: Update, Reboot, Drain, Fence, Maintenance, Deprovision, PowerOff)',
    ]));
  });
});
