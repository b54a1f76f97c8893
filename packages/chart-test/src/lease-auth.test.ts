// Rights of the LeaseService's callers (leaseAuth): the ClusterRoles on lockstep.io nodeleases, the
// optional bindings, the aggregation of reads, and LEASE_AUTH / LEASE_AUTH_CACHE_TTL on the
// lease-coordinator.
import { describe, expect, it } from "vitest";
import { coalesce, chartDefaults, renderChart, schemaErrors, ValuesSchemaError, type Manifest, type Values } from "./chart.js";
import { chartDir } from "./paths.js";
import { validateManifests } from "./validate.js";

const render = (values: Values = {}) => renderChart(chartDir, { values }).manifests;
const named = (ms: Manifest[], kind: string, name: string) => ms.find((m) => m.kind === kind && m.metadata.name === name) as any;
const leaseEnv = (ms: Manifest[]) =>
  Object.fromEntries(named(ms, "Deployment", "lockstep-lease-coordinator").spec.template.spec.containers[0].env.map((e: any) => [e.name, e.value]));
const nodeleaseRules = (role: any) => role.rules.filter((r: any) => r.apiGroups.includes("lockstep.io") && r.resources.includes("nodeleases"));

describe("default values", () => {
  const ms = render();

  it("authenticate callers with tokens: LEASE_AUTH=token, answers cached 10s", () => {
    expect(leaseEnv(ms)).toMatchObject({ LEASE_AUTH: "token", LEASE_AUTH_CACHE_TTL: "10s" });
  });

  it("ship lease-user (reads, acquire) and lease-admin (also release-any, force) on nodeleases, bound to nobody", () => {
    expect(nodeleaseRules(named(ms, "ClusterRole", "lockstep-lease-user"))).toEqual([{ apiGroups: ["lockstep.io"], resources: ["nodeleases"], verbs: ["get", "list", "watch", "acquire"] }]);
    expect(nodeleaseRules(named(ms, "ClusterRole", "lockstep-lease-admin"))).toEqual([
      { apiGroups: ["lockstep.io"], resources: ["nodeleases"], verbs: ["get", "list", "watch", "acquire", "release-any", "force"] },
    ]);
    expect(named(ms, "ClusterRoleBinding", "lockstep-lease-user")).toBeUndefined();
    expect(named(ms, "ClusterRoleBinding", "lockstep-lease-admin")).toBeUndefined();
  });

  it("aggregate the reads only (never acquire) into view, edit, admin and cluster-reader", () => {
    const viewer = named(ms, "ClusterRole", "lockstep-lease-viewer");
    expect(viewer.rules).toEqual([{ apiGroups: ["lockstep.io"], resources: ["nodeleases"], verbs: ["get", "list", "watch"] }]);
    for (const role of ["view", "edit", "admin", "cluster-reader"]) expect(viewer.metadata.labels[`rbac.authorization.k8s.io/aggregate-to-${role}`]).toBe("true");
    const aggregated = ms.filter((m) => Object.keys(m.metadata.labels ?? {}).some((l) => l.startsWith("rbac.authorization.k8s.io/aggregate-to-")));
    expect(aggregated.map((m) => m.metadata.name)).toEqual(["lockstep-lease-viewer"]);
  });
});

describe("bindings from values", () => {
  const values: Values = {
    leaseAuth: {
      users: [
        { kind: "Group", name: "node-maintainers" },
        { kind: "ServiceAccount", name: "remediation", namespace: "ops" },
      ],
      admins: [{ kind: "User", name: "alice@example.com" }],
      aggregateReadsToDefaultRoles: false,
    },
  };
  const ms = render(values);

  it("bind users to lease-user and admins to lease-admin, as ordinary RBAC subjects", () => {
    const user = named(ms, "ClusterRoleBinding", "lockstep-lease-user");
    expect(user.roleRef).toEqual({ apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "lockstep-lease-user" });
    expect(user.subjects).toEqual([
      { kind: "Group", name: "node-maintainers", apiGroup: "rbac.authorization.k8s.io" },
      { kind: "ServiceAccount", name: "remediation", namespace: "ops" },
    ]);
    const admin = named(ms, "ClusterRoleBinding", "lockstep-lease-admin");
    expect(admin.roleRef.name).toBe("lockstep-lease-admin");
    expect(admin.subjects).toEqual([{ kind: "User", name: "alice@example.com", apiGroup: "rbac.authorization.k8s.io" }]);
    expect(validateManifests(ms)).toEqual([]);
  });

  it("leave the cluster's roles alone when aggregation is off", () => {
    expect(named(ms, "ClusterRole", "lockstep-lease-viewer")).toBeUndefined();
  });

  it("are not rendered without a lease-coordinator", () => {
    const none = render({ ...values, leaseCoordinator: { enabled: false } });
    expect(none.filter((m) => /-lease-(user|admin|viewer)$/.test(m.metadata.name))).toEqual([]);
  });
});

describe("values.schema.json for leaseAuth", () => {
  const errors = (user: Values) => schemaErrors(chartDir, coalesce(chartDefaults(chartDir), user));

  it.each(["token", "mtls", "token,mtls", "mtls,token", "none"])("accepts mode %s and passes it as LEASE_AUTH", (mode) => {
    expect(errors({ leaseAuth: { mode } })).toEqual([]);
    expect(leaseEnv(render({ leaseAuth: { mode } })).LEASE_AUTH).toBe(mode);
  });

  it.each([
    ["an unknown mode", { mode: "password" }],
    ["none mixed with another mode", { mode: "none,token" }],
    ["a cache TTL that is not a duration", { cacheTTL: "10" }],
    ["a ServiceAccount without a namespace", { users: [{ kind: "ServiceAccount", name: "x" }] }],
    ["a User with a namespace", { admins: [{ kind: "User", name: "x", namespace: "y" }] }],
    ["an unknown subject kind", { users: [{ kind: "Robot", name: "x" }] }],
  ])("refuses %s", (_what, leaseAuth) => {
    expect(errors({ leaseAuth } as Values).length).toBeGreaterThan(0);
    expect(() => render({ leaseAuth } as Values)).toThrow(ValuesSchemaError);
  });
});
