import { describe, expect, it } from "vitest";
import { bindingHooks, roleHooks } from "./rbac-validation.js";
import type { KubeObject } from "./types.js";

const G = "rbac.authorization.k8s.io";
const fields = (errs: Array<{ field: string; detail: string }>) => errs.map((e) => `${e.field}: ${e.detail}`);

describe("role validation", () => {
  it.each<[string, boolean, unknown[], string[]]>([
    ["a resource rule", true, [{ apiGroups: [""], resources: ["pods"], verbs: ["get"] }], []],
    ["a non-resource rule on a ClusterRole", false, [{ nonResourceURLs: ["/metrics"], verbs: ["get"] }], []],
    ["no verbs", false, [{ apiGroups: [""], resources: ["pods"] }], ["rules[0].verbs: Required value: verbs must contain at least one value"]],
    [
      "no apiGroups or resources",
      false,
      [{ verbs: ["get"] }],
      ["rules[0].apiGroups: Required value: resource rules must supply at least one api group", "rules[0].resources: Required value: resource rules must supply at least one resource"],
    ],
    ["non-resource URLs in a Role", true, [{ nonResourceURLs: ["/x"], verbs: ["get"] }], ['rules[0].nonResourceURLs: Invalid value: ["/x"]: namespaced rules cannot apply to non-resource URLs']],
    [
      "both kinds in one rule",
      false,
      [{ nonResourceURLs: ["/x"], resources: ["pods"], verbs: ["get"] }],
      ['rules[0].nonResourceURLs: Invalid value: ["/x"]: rules cannot apply to both regular resources and non-resource URLs'],
    ],
    ["rules that are not a list", false, "x" as unknown as unknown[], ['rules: Invalid value: "x": must be a list']],
  ])("%s", (_name, namespaced, rules, want) => {
    expect(fields(roleHooks(namespaced).validate!({ rules } as KubeObject, undefined))).toEqual(want);
  });
});

describe("binding defaulting and validation", () => {
  const binding = (roleRef: object, subjects: object[]): KubeObject => ({ metadata: { name: "b" }, roleRef, subjects }) as KubeObject;

  it("defaults apiGroup on roleRef and on User/Group subjects, not on ServiceAccounts", () => {
    const b = binding({ kind: "ClusterRole", name: "r" }, [{ kind: "User", name: "u" }, { kind: "ServiceAccount", name: "s" }]);
    bindingHooks(true).prepareForCreate!(b);
    expect(b.roleRef).toEqual({ kind: "ClusterRole", name: "r", apiGroup: G });
    expect(b.subjects).toEqual([{ kind: "User", name: "u", apiGroup: G }, { kind: "ServiceAccount", name: "s" }]);
  });

  it.each<[string, boolean, object, object[], string[]]>([
    ["a RoleBinding to a Role", true, { apiGroup: G, kind: "Role", name: "r" }, [{ kind: "ServiceAccount", name: "s" }], []],
    ["a ClusterRoleBinding to a Role", false, { apiGroup: G, kind: "Role", name: "r" }, [], ['roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"']],
    ["no roleRef name", true, { apiGroup: G, kind: "Role" }, [], ["roleRef.name: Required value"]],
    ["a foreign roleRef group", true, { apiGroup: "x", kind: "Role", name: "r" }, [], [`roleRef.apiGroup: Unsupported value: "x": supported values: "${G}"`]],
    ["a ServiceAccount without namespace in a ClusterRoleBinding", false, { apiGroup: G, kind: "ClusterRole", name: "r" }, [{ kind: "ServiceAccount", name: "s" }], ["subjects[0].namespace: Required value"]],
    [
      "an unknown subject kind and a nameless user",
      true,
      { apiGroup: G, kind: "Role", name: "r" },
      [{ kind: "Robot", name: "x" }, { kind: "User", apiGroup: G }],
      ['subjects[0].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"', "subjects[1].name: Required value"],
    ],
  ])("%s", (_name, namespaced, roleRef, subjects, want) => {
    expect(fields(bindingHooks(namespaced).validate!(binding(roleRef, subjects), undefined))).toEqual(want);
  });

  it("roleRef cannot change", () => {
    const old = binding({ apiGroup: G, kind: "Role", name: "a" }, []);
    const next = binding({ apiGroup: G, kind: "Role", name: "b" }, []);
    expect(fields(bindingHooks(true).validate!(next, old))).toEqual([`roleRef: Invalid value: {"apiGroup":"${G}","kind":"Role","name":"b"}: cannot change roleRef`]);
  });
});
