import { describe, expect, it } from "vitest";
import type { NodeDisruptionPolicyState } from "@lockstep/contracts";
import { effectiveRulesToProto, policyObjectFromState } from "./proto.js";
import { resolvePolicies } from "./merge.js";
import { validateNodeDisruptionPolicy } from "./validate.js";
import { SPEC_DEFAULTS_OBJECT, adminPolicy, drain } from "./__fixtures__/mc.js";

describe("policyObjectFromState", () => {
  it("rebuilds a valid object from a state snapshot", () => {
    const state: NodeDisruptionPolicyState = {
      name: "mine",
      uid: "u-1",
      generation: "3",
      files: [{ path: "/etc/app", actions: [{ type: "Drain", serviceName: "" }, { type: "Reload", serviceName: "app.service" }] }],
      units: [{ name: "app.service", actions: [{ type: "Restart", serviceName: "app.service" }] }],
      sshkey: { actions: [{ type: "None", serviceName: "" }] },
      sshkeyPresent: true,
      default: false,
      conditions: [],
    };
    const r = validateNodeDisruptionPolicy(policyObjectFromState(state));
    expect(r.problems).toEqual([]);
    if (!r.ok) return;
    expect(r.policy.metadata).toEqual({ name: "mine", uid: "u-1", generation: 3 });
    expect(r.policy.spec).toEqual({
      files: [{ path: "/etc/app", actions: [{ type: "Drain" }, { type: "Reload", reload: { serviceName: "app.service" } }] }],
      units: [{ name: "app.service", actions: [{ type: "Restart", restart: { serviceName: "app.service" } }] }],
      sshkey: { actions: [{ type: "None" }] },
    });
  });

  it("keeps the default label so Special stays allowed", () => {
    const state: NodeDisruptionPolicyState = {
      name: "d", uid: "", generation: "1", files: [{ path: "/etc/containers/registries.conf", actions: [{ type: "Special", serviceName: "" }] }],
      units: [], sshkeyPresent: false, default: true, conditions: [],
    };
    expect(validateNodeDisruptionPolicy(policyObjectFromState(state)).ok).toBe(true);
    expect(validateNodeDisruptionPolicy(policyObjectFromState({ ...state, default: false })).ok).toBe(false);
  });
});

describe("effectiveRulesToProto", () => {
  it("lists files, units and the sshkey rule with their objects", () => {
    const { rules } = resolvePolicies([SPEC_DEFAULTS_OBJECT, adminPolicy("mine", { files: [{ path: "/var/lib/kubelet/config.json", actions: [drain] }] })]);
    const out = effectiveRulesToProto(rules);
    expect(out).toHaveLength(13 + 1 + 1);
    expect(out[0]).toEqual({ kind: "file", key: "/var/lib/kubelet/config.json", actions: [{ type: "Drain", serviceName: "" }], policy: "mine", default: false });
    expect(out[7]!.actions).toEqual([
      { type: "Restart", serviceName: "coreos-update-ca-trust.service" },
      { type: "Restart", serviceName: "crio.service" },
    ]);
    expect(out.slice(-2).map((r) => [r.kind, r.key, r.policy, r.default])).toEqual([
      ["unit", "iri-registry.service", "lockstep-defaults", true],
      ["sshkey", "sshkey", "lockstep-defaults", true],
    ]);
  });
});
