import { NodeDisruptionPolicyState } from "@lockstep/contracts";
import { describe, expect, it } from "vitest";
import { desiredPolicyStatuses } from "./desired.js";

const now = new Date("2026-11-21T12:00:00Z");
const earlier = new Date("2026-11-20T08:00:00Z");
const policy = (name: string, p: Partial<NodeDisruptionPolicyState>) => NodeDisruptionPolicyState.fromPartial({ name, ...p });

describe("desiredPolicyStatuses", () => {
  it("accepts a valid policy and marks it changed until its status says so", () => {
    const fresh = policy("myapp", { files: [{ path: "/etc/myapp.conf", actions: [{ type: "Restart", serviceName: "myapp.service" }] }] });
    const [d] = desiredPolicyStatuses([fresh], now);
    expect(d).toMatchObject({ name: "myapp", changed: true });
    expect(d!.conditions.map((c) => [c.type, c.status, c.reason])).toEqual([
      ["Accepted", "True", "Valid"],
      ["Conflicting", "False", "NoConflict"],
    ]);

    const written = policy("myapp", { files: fresh.files, conditions: d!.conditions.map((c) => ({ ...c, lastTransitionTime: earlier })) });
    const [again] = desiredPolicyStatuses([written], now);
    expect(again!.changed).toBe(false);
    expect(again!.conditions[0]!.lastTransitionTime).toEqual(earlier);
  });

  it("rejects an invalid policy and says why", () => {
    const bad = policy("bad", { files: [{ path: "relative/path", actions: [{ type: "Restart", serviceName: "" }] }] });
    const [d] = desiredPolicyStatuses([bad], now);
    expect(d!.conditions).toHaveLength(1);
    expect(d!.conditions[0]).toMatchObject({ type: "Accepted", status: "False", reason: "InvalidSpec" });
    expect(d!.conditions[0]!.message.length).toBeGreaterThan(0);
  });

  it("reports which admin rule overrides another", () => {
    const rule = (svc: string) => ({ path: "/etc/shared.conf", actions: [{ type: "Restart", serviceName: svc }] });
    const out = desiredPolicyStatuses([policy("a-first", { files: [rule("a.service")] }), policy("b-second", { files: [rule("b.service")] })], now);
    const a = out.find((s) => s.name === "a-first")!;
    expect(a.conditions.find((c) => c.type === "Conflicting")).toMatchObject({ status: "True", reason: "RuleOverridden" });
  });
});
