import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { mergePolicies, resolvePolicies } from "./merge.js";
import { validateNodeDisruptionPolicy } from "./validate.js";
import type { NodeDisruptionPolicy } from "./types.js";
import { SPEC_DEFAULTS_OBJECT, SPEC_DEFAULT_FILES, adminPolicy, drain, none, reboot, reload, special } from "./__fixtures__/mc.js";

const valid = (o: unknown): NodeDisruptionPolicy => {
  const r = validateNodeDisruptionPolicy(o);
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.policy;
};
const DEFAULTS = valid(SPEC_DEFAULTS_OBJECT);

describe("mergePolicies (mco-behaviors.md §2.5)", () => {
  it("keeps the default order when there are no admin objects", () => {
    const { rules, conflicts } = mergePolicies([DEFAULTS]);
    expect(rules.files.map((f) => f.path)).toEqual(SPEC_DEFAULT_FILES.map((f) => f.path));
    expect(rules.files.every((f) => f.source.default && f.source.policy === "lockstep-defaults")).toBe(true);
    expect(rules.files[3]!.source.rule).toBe("spec.files[3]");
    expect(rules.units.map((u) => u.name)).toEqual(["iri-registry.service"]);
    expect(rules.sshkey?.actions).toEqual([none]);
    expect(conflicts).toEqual([]);
  });

  it("replaces a default with the same path in place and appends new paths in admin order", () => {
    const admin = valid(
      adminPolicy("mine", {
        files: [
          { path: "/etc/b", actions: [drain] },
          { path: "/etc/containers/registries.conf", actions: [none] },
          { path: "/etc/a", actions: [reboot] },
        ],
        units: [{ name: "iri-registry.service", actions: [none] }, { name: "x.service", actions: [drain] }],
      }),
    );
    const { rules, conflicts } = mergePolicies([admin, DEFAULTS]);
    const paths = rules.files.map((f) => f.path);
    expect(paths).toEqual([...SPEC_DEFAULT_FILES.map((f) => f.path), "/etc/b", "/etc/a"]);
    expect(rules.files[3]).toEqual({ path: "/etc/containers/registries.conf", actions: [none], source: { policy: "mine", default: false, rule: "spec.files[1]" } });
    expect(rules.units.map((u) => [u.name, u.source.policy])).toEqual([
      ["iri-registry.service", "mine"],
      ["x.service", "mine"],
    ]);
    expect(conflicts).toEqual([]);
  });

  it("an exact path match only: a trailing slash does not override the default", () => {
    const admin = valid(adminPolicy("mine", { files: [{ path: "/etc/containers/registries.d/", actions: [drain] }] }));
    const { rules } = mergePolicies([DEFAULTS, admin]);
    expect(rules.files.filter((f) => f.path.startsWith("/etc/containers/registries.d")).map((f) => f.path)).toEqual([
      "/etc/containers/registries.d",
      "/etc/containers/registries.d/",
    ]);
  });

  it("sshkey: a non-empty admin list replaces the default, an empty one does not", () => {
    expect(mergePolicies([DEFAULTS, valid(adminPolicy("a", { sshkey: { actions: [drain] } }))]).rules.sshkey).toEqual({
      actions: [drain],
      source: { policy: "a", default: false, rule: "spec.sshkey" },
    });
    expect(mergePolicies([DEFAULTS, valid(adminPolicy("a", { sshkey: { actions: [] } }))]).rules.sshkey?.source.policy).toBe("lockstep-defaults");
    expect(mergePolicies([]).rules.sshkey).toBeUndefined();
  });

  it("between admin objects the later name wins, and each override is reported as a conflict", () => {
    const a = valid(adminPolicy("10-a", { files: [{ path: "/etc/x", actions: [drain] }], sshkey: { actions: [drain] } }));
    const b = valid(adminPolicy("20-b", { files: [{ path: "/etc/x", actions: [none] }], units: [{ name: "u.service", actions: [none] }], sshkey: { actions: [reload("s.service")] } }));
    const { rules, conflicts } = mergePolicies([b, DEFAULTS, a]);
    expect(rules.files.find((f) => f.path === "/etc/x")).toMatchObject({ actions: [none], source: { policy: "20-b" } });
    expect(rules.sshkey?.source.policy).toBe("20-b");
    expect(conflicts.map((c) => c.message)).toEqual([
      'file rule "/etc/x" of NodeDisruptionPolicy "10-a" spec.files[0] is overridden by NodeDisruptionPolicy "20-b" spec.files[0]',
      'sshkey rule of NodeDisruptionPolicy "10-a" spec.sshkey is overridden by NodeDisruptionPolicy "20-b" spec.sshkey',
    ]);
    expect(conflicts.map((c) => [c.kind, c.key, c.overridden.policy, c.by.policy])).toEqual([
      ["file", "/etc/x", "10-a", "20-b"],
      ["sshkey", "sshkey", "10-a", "20-b"],
    ]);
  });

  it("the result does not depend on the order the objects arrive in", () => {
    const objs = [
      DEFAULTS,
      valid(adminPolicy("a", { files: [{ path: "/etc/x", actions: [drain] }, { path: "/etc/y", actions: [none] }] })),
      valid(adminPolicy("b", { files: [{ path: "/etc/y", actions: [drain] }, { path: "/var/lib/kubelet/config.json", actions: [drain] }] })),
      valid(adminPolicy("c", { files: [{ path: "/etc/x", actions: [reload("c.service")] }], units: [{ name: "c.service", actions: [none] }] })),
    ];
    const expected = mergePolicies(objs);
    fc.assert(fc.property(fc.shuffledSubarray(objs, { minLength: objs.length }), (shuffled) => {
      expect(mergePolicies(shuffled)).toEqual(expected);
    }));
  });
});

describe("resolvePolicies", () => {
  it("validates, merges only accepted objects and gives each object its conditions", () => {
    const bad = adminPolicy("bad", { files: [{ path: "/etc/motd", actions: [special] }] });
    const a = adminPolicy("a", { files: [{ path: "/etc/x", actions: [drain] }] });
    const b = adminPolicy("b", { files: [{ path: "/etc/x", actions: [none] }] });
    const r = resolvePolicies([bad, SPEC_DEFAULTS_OBJECT, b, a, { kind: "NodeDisruptionPolicy" }]);
    expect(r.rules.files.some((f) => f.path === "/etc/motd")).toBe(false);
    expect(r.statuses.map((s) => [s.name, s.default, s.conditions.map((c) => `${c.type}=${c.status}/${c.reason}`)])).toEqual([
      ["a", false, ["Accepted=True/Valid", "Conflicting=True/RuleOverridden"]],
      ["b", false, ["Accepted=True/Valid", "Conflicting=False/NoConflict"]],
      ["bad", false, ["Accepted=False/InvalidSpec"]],
      ["lockstep-defaults", true, ["Accepted=True/Valid", "Conflicting=False/NoConflict"]],
    ]);
    expect(r.statuses[0]!.conditions[1]!.message).toBe('file rule "/etc/x" of NodeDisruptionPolicy "a" spec.files[0] is overridden by NodeDisruptionPolicy "b" spec.files[0]');
    expect(r.statuses[2]!.conditions[0]!.message).toContain('spec.files[0].actions[0].type: Unsupported value: "Special"');
  });
});
