import { describe, expect, it } from "vitest";
import { authorize, ruleAllows, sourceFromObjects, type AccessRequest, type PolicyRule, type ResourceAttributes, type UserInfo } from "./rbac.js";
import type { KubeObject } from "./types.js";

const G = "rbac.authorization.k8s.io";
const clusterRole = (name: string, rules: PolicyRule[], extra: Partial<KubeObject> = {}): KubeObject => ({
  apiVersion: `${G}/v1`,
  kind: "ClusterRole",
  metadata: { name, ...(extra.metadata ?? {}) },
  rules,
  ...(extra.aggregationRule ? { aggregationRule: extra.aggregationRule } : {}),
});
const role = (ns: string, name: string, rules: PolicyRule[]): KubeObject => ({ apiVersion: `${G}/v1`, kind: "Role", metadata: { name, namespace: ns }, rules });
const crb = (name: string, roleName: string, subjects: object[]): KubeObject => ({
  apiVersion: `${G}/v1`,
  kind: "ClusterRoleBinding",
  metadata: { name },
  roleRef: { apiGroup: G, kind: "ClusterRole", name: roleName },
  subjects,
});
const rb = (ns: string, name: string, kind: "Role" | "ClusterRole", roleName: string, subjects: object[]): KubeObject => ({
  apiVersion: `${G}/v1`,
  kind: "RoleBinding",
  metadata: { name, namespace: ns },
  roleRef: { apiGroup: G, kind, name: roleName },
  subjects,
});

const alice: UserInfo = { username: "alice", groups: ["system:authenticated"] };
const ops: UserInfo = { username: "bob", groups: ["ops", "system:authenticated"] };
const sa: UserInfo = {
  username: "system:serviceaccount:lockstep:coordinator",
  groups: ["system:serviceaccounts", "system:serviceaccounts:lockstep", "system:authenticated"],
};
const admin: UserInfo = { username: "kube-sim-admin", groups: ["system:masters", "system:authenticated"] };
const nobody: UserInfo = { username: "mallory", groups: ["system:authenticated"] };

const objects: KubeObject[] = [
  clusterRole("node-reader", [{ apiGroups: [""], resources: ["nodes"], verbs: ["get", "list", "watch"] }]),
  clusterRole("lease-admin", [{ apiGroups: ["lockstep.io"], resources: ["nodeleases"], verbs: ["acquire", "release-any", "force", "get"] }]),
  clusterRole("lease-user", [{ apiGroups: ["lockstep.io"], resources: ["nodeleases"], verbs: ["acquire", "get"] }]),
  clusterRole("status-writer", [{ apiGroups: ["*"], resources: ["*/status"], verbs: ["update", "patch"] }]),
  clusterRole("one-cm", [{ apiGroups: [""], resources: ["configmaps"], resourceNames: ["lockstep-config"], verbs: ["get", "update"] }]),
  clusterRole("health", [{ nonResourceURLs: ["/healthz", "/metrics/*"], verbs: ["get"] }]),
  clusterRole("everything", [{ apiGroups: ["*"], resources: ["*"], verbs: ["*"] }]),
  clusterRole("aggregate-view", [], { aggregationRule: { clusterRoleSelectors: [{ matchLabels: { "lockstep.io/aggregate-to-view": "true" } }] } }),
  clusterRole("pool-viewer", [{ apiGroups: ["machineconfiguration.openshift.io"], resources: ["machineconfigpools"], verbs: ["get"] }], {
    metadata: { name: "pool-viewer", labels: { "lockstep.io/aggregate-to-view": "true" } },
  }),
  role("lockstep", "lease-writer", [{ apiGroups: ["coordination.k8s.io"], resources: ["leases"], verbs: ["create", "update", "get"] }]),
  crb("read-nodes", "node-reader", [{ kind: "User", apiGroup: G, name: "alice" }]),
  crb("ops-leases", "lease-admin", [{ kind: "Group", apiGroup: G, name: "ops" }]),
  crb("coordinator-leases", "lease-user", [{ kind: "ServiceAccount", name: "coordinator", namespace: "lockstep" }]),
  crb("coordinator-status", "status-writer", [{ kind: "ServiceAccount", name: "coordinator", namespace: "lockstep" }]),
  crb("alice-cm", "one-cm", [{ kind: "User", name: "alice" }]),
  crb("alice-health", "health", [{ kind: "User", name: "alice" }]),
  crb("ops-view", "aggregate-view", [{ kind: "Group", name: "ops" }]),
  crb("sa-without-namespace", "everything", [{ kind: "ServiceAccount", name: "coordinator" }]),
  crb("dangling", "no-such-role", [{ kind: "User", name: "mallory" }]),
  rb("lockstep", "coordinator-leases", "Role", "lease-writer", [{ kind: "ServiceAccount", name: "coordinator" }]),
  rb("lockstep", "alice-local-admin", "ClusterRole", "everything", [{ kind: "User", name: "alice" }]),
  rb("other", "wrong-ns-sa", "ClusterRole", "everything", [{ kind: "ServiceAccount", name: "coordinator" }]),
];
const source = sourceFromObjects(objects);

const res = (verb: string, resource: string, more: Partial<ResourceAttributes> = {}): Pick<AccessRequest, "resource"> => ({
  resource: { verb, resource, group: "", ...more },
});

describe("authorize (RBAC)", () => {
  const cases: Array<[string, UserInfo, Pick<AccessRequest, "resource" | "nonResource">, boolean, string]> = [
    ["masters are always allowed, with no reason", admin, res("delete", "nodes"), true, ""],
    ["ClusterRoleBinding to a User", alice, res("list", "nodes"), true, 'RBAC: allowed by ClusterRoleBinding "read-nodes" of ClusterRole "node-reader" to User "alice"'],
    ["verb not in the rule", alice, res("delete", "nodes"), false, ""],
    ["another group is not matched", alice, res("get", "pods"), false, ""],
    [
      "custom group and verb through a Group subject",
      ops,
      res("release-any", "nodeleases", { group: "lockstep.io", name: "worker-1" }),
      true,
      'RBAC: allowed by ClusterRoleBinding "ops-leases" of ClusterRole "lease-admin" to Group "ops"',
    ],
    ["custom verb not granted to the service account", sa, res("release-any", "nodeleases", { group: "lockstep.io" }), false, ""],
    [
      "custom verb granted to the service account",
      sa,
      res("acquire", "nodeleases", { group: "lockstep.io", name: "worker-1" }),
      true,
      'RBAC: allowed by ClusterRoleBinding "coordinator-leases" of ClusterRole "lease-user" to ServiceAccount "coordinator/lockstep"',
    ],
    ["the right resource in the wrong group", ops, res("release-any", "nodeleases", { group: "example.com" }), false, ""],
    [
      "*/status matches any status subresource",
      sa,
      res("patch", "nodes", { subresource: "status", name: "n1" }),
      true,
      'RBAC: allowed by ClusterRoleBinding "coordinator-status" of ClusterRole "status-writer" to ServiceAccount "coordinator/lockstep"',
    ],
    ["*/status does not match the main resource", sa, res("patch", "nodes", { name: "n1" }), false, ""],
    ["*/status does not match another subresource", sa, res("patch", "pods", { subresource: "eviction" }), false, ""],
    ["resourceNames: the named object", alice, res("get", "configmaps", { namespace: "x", name: "lockstep-config" }), true, 'RBAC: allowed by ClusterRoleBinding "alice-cm" of ClusterRole "one-cm" to User "alice"'],
    ["resourceNames: another object", alice, res("get", "configmaps", { namespace: "x", name: "other" }), false, ""],
    ["resourceNames: a list (no name) is not allowed", alice, res("list", "configmaps", { namespace: "x" }), false, ""],
    [
      "RoleBinding to a Role grants inside its namespace (SA subject without namespace)",
      sa,
      res("update", "leases", { group: "coordination.k8s.io", namespace: "lockstep", name: "n1" }),
      true,
      'RBAC: allowed by RoleBinding "coordinator-leases/lockstep" of Role "lease-writer" to ServiceAccount "coordinator/lockstep"',
    ],
    ["RoleBinding grants nothing in another namespace", sa, res("update", "leases", { group: "coordination.k8s.io", namespace: "default" }), false, ""],
    ["RoleBinding grants nothing cluster-wide", sa, res("update", "leases", { group: "coordination.k8s.io" }), false, ""],
    [
      "RoleBinding to a ClusterRole grants only in the binding's namespace",
      alice,
      res("delete", "pods", { namespace: "lockstep", name: "p" }),
      true,
      'RBAC: allowed by RoleBinding "alice-local-admin/lockstep" of ClusterRole "everything" to User "alice"',
    ],
    ["…and not elsewhere", alice, res("delete", "pods", { namespace: "default", name: "p" }), false, ""],
    ["a ServiceAccount subject only matches its own namespace", sa, res("delete", "pods", { namespace: "other" }), false, ""],
    ["a ServiceAccount subject without namespace in a ClusterRoleBinding matches nobody", sa, res("delete", "secrets", { namespace: "lockstep" }), false, ""],
    ["nonResourceURLs exact", alice, { nonResource: { path: "/healthz", verb: "get" } }, true, 'RBAC: allowed by ClusterRoleBinding "alice-health" of ClusterRole "health" to User "alice"'],
    ["nonResourceURLs prefix*", alice, { nonResource: { path: "/metrics/leases", verb: "get" } }, true, 'RBAC: allowed by ClusterRoleBinding "alice-health" of ClusterRole "health" to User "alice"'],
    ["nonResourceURLs other path", alice, { nonResource: { path: "/readyz", verb: "get" } }, false, ""],
    ["nonResourceURLs other verb", alice, { nonResource: { path: "/healthz", verb: "post" } }, false, ""],
    ["resource rules do not grant non-resource paths", ops, { nonResource: { path: "/healthz", verb: "get" } }, false, ""],
    [
      "aggregated ClusterRole carries the rules of the roles it selects",
      ops,
      res("get", "machineconfigpools", { group: "machineconfiguration.openshift.io", name: "worker" }),
      true,
      'RBAC: allowed by ClusterRoleBinding "ops-view" of ClusterRole "aggregate-view" to Group "ops"',
    ],
    ["a binding to a missing role denies and says why", nobody, res("get", "nodes"), false, 'RBAC: clusterrole.rbac.authorization.k8s.io "no-such-role" not found'],
  ];
  it.each(cases)("%s", (_name, user, attrs, allowed, reason) => {
    expect(authorize(source, { user, ...attrs })).toEqual({ allowed, reason });
  });

  it("looks at ClusterRoleBindings before RoleBindings", () => {
    const both = sourceFromObjects([
      clusterRole("all", [{ apiGroups: ["*"], resources: ["*"], verbs: ["*"] }]),
      crb("z-cluster", "all", [{ kind: "User", name: "u" }]),
      rb("ns", "a-local", "ClusterRole", "all", [{ kind: "User", name: "u" }]),
    ]);
    expect(authorize(both, { user: { username: "u", groups: [] }, resource: { verb: "get", resource: "pods", namespace: "ns" } }).reason).toBe(
      'RBAC: allowed by ClusterRoleBinding "z-cluster" of ClusterRole "all" to User "u"',
    );
  });

  it("a RoleBinding's Role is looked up in the binding's namespace", () => {
    const s = sourceFromObjects([role("a", "r", [{ apiGroups: [""], resources: ["pods"], verbs: ["get"] }]), rb("b", "x", "Role", "r", [{ kind: "User", name: "u" }])]);
    expect(authorize(s, { user: { username: "u", groups: [] }, resource: { verb: "get", resource: "pods", namespace: "b" } })).toEqual({
      allowed: false,
      reason: 'RBAC: role.rbac.authorization.k8s.io "r" not found',
    });
  });

  it("malformed objects deny instead of throwing", () => {
    const s = sourceFromObjects([
      { kind: "ClusterRole", metadata: { name: "bad" }, rules: "nope" } as KubeObject,
      { kind: "ClusterRoleBinding", metadata: { name: "b" }, roleRef: { kind: "ClusterRole", name: "bad" }, subjects: [{ kind: "User", name: "u" }] } as KubeObject,
      { kind: "ClusterRoleBinding", metadata: { name: "c" }, roleRef: { kind: "Widget", name: "x" }, subjects: [{ kind: "User", name: "u" }] } as KubeObject,
      { kind: "ClusterRoleBinding", metadata: { name: "d" }, subjects: "nope" } as KubeObject,
    ]);
    expect(authorize(s, { user: { username: "u", groups: [] }, resource: { verb: "get", resource: "pods" } })).toEqual({
      allowed: false,
      reason: 'RBAC: unsupported role reference kind: "Widget"',
    });
  });
});

describe("ruleAllows", () => {
  const cases: Array<[PolicyRule, ResourceAttributes, boolean]> = [
    [{ apiGroups: [""], resources: ["pods"], verbs: ["*"] }, { verb: "watch", group: "", resource: "pods" }, true],
    [{ apiGroups: ["*"], resources: ["pods"], verbs: ["get"] }, { verb: "get", group: "example.com", resource: "pods" }, true],
    [{ apiGroups: [""], resources: ["pods/log"], verbs: ["get"] }, { verb: "get", group: "", resource: "pods", subresource: "log" }, true],
    [{ apiGroups: [""], resources: ["pods"], verbs: ["get"] }, { verb: "get", group: "", resource: "pods", subresource: "log" }, false],
    [{ apiGroups: [""], resources: ["*"], verbs: ["get"] }, { verb: "get", group: "", resource: "pods", subresource: "log" }, true],
    [{ apiGroups: [""], resources: ["pods"], verbs: ["get"] }, { verb: "get", group: "apps", resource: "pods" }, false],
    [{ resources: ["pods"], verbs: ["get"] }, { verb: "get", group: "", resource: "pods" }, false],
    [{ apiGroups: [""], resources: ["pods"] }, { verb: "get", group: "", resource: "pods" }, false],
  ];
  it.each(cases)("%j allows %j → %s", (rule, attrs, want) => {
    expect(ruleAllows({ resource: attrs }, rule)).toBe(want);
  });
});
