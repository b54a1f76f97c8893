// High availability: two replicas of every service with leader election (client-go's protocol on a
// Lease lockstep-<service> in the release namespace), a PodDisruptionBudget only where there is more
// than one replica, spreading across nodes (and zones on request), the leader-election and NATS
// replication settings in every service's environment, each service's Role on its own election
// Lease, and the timings Helm refuses to render.
import { describe, expect, it } from "vitest";
import { chartDefaults, coalesce, renderChart, schemaErrors, ValuesSchemaError, type Manifest, type Values } from "./chart.js";
import { chartDir } from "./paths.js";
import { grantsOf } from "./rbac-chart.js";
import { validateManifests } from "./validate.js";

const SERVICES = ["watcher", "lease-coordinator", "skew-enforcer", "bootimage-updater", "status-aggregator"];
const KEYS: Record<string, string> = {
  watcher: "watcher",
  "lease-coordinator": "leaseCoordinator",
  "skew-enforcer": "skewEnforcer",
  "bootimage-updater": "bootimageUpdater",
  "status-aggregator": "statusAggregator",
};
const NAMESPACE = "lockstep";

const render = (values: Values = {}, o: { namespace?: string; releaseName?: string } = {}) =>
  renderChart(chartDir, { values, namespace: o.namespace ?? NAMESPACE, releaseName: o.releaseName }).manifests;
const ofKind = (ms: Manifest[], kind: string) => ms.filter((m) => m.kind === kind);
const component = (m: Manifest) => m.metadata.labels?.["app.kubernetes.io/component"];
const deployment = (ms: Manifest[], svc: string) => ofKind(ms, "Deployment").find((d) => component(d) === svc) as any;
const podSpec = (ms: Manifest[], svc: string) => deployment(ms, svc).spec.template.spec;
const envOf = (ms: Manifest[], svc: string): Record<string, unknown> =>
  Object.fromEntries(podSpec(ms, svc).containers[0].env.map((e: any) => [e.name, e.value ?? e.valueFrom]));
/** Every service at one replica (leader election on or off). */
const single = Object.fromEntries(Object.values(KEYS).map((k) => [k, { replicas: 1 }])) as Values;

describe("default values", () => {
  const ms = render();

  it("run two replicas of every service", () => {
    expect(Object.fromEntries(ofKind(ms, "Deployment").map((d) => [component(d), (d.spec as any).replicas]))).toEqual(
      Object.fromEntries(SERVICES.map((s) => [s, 2])),
    );
  });

  it("give every service a PodDisruptionBudget of maxUnavailable 1 that selects its pods, unready pods always evictable", () => {
    const pdbs = ofKind(ms, "PodDisruptionBudget");
    expect(pdbs.map(component).sort()).toEqual([...SERVICES].sort());
    for (const p of pdbs) {
      expect((p.spec as any).maxUnavailable, component(p)).toBe(1);
      expect((p.spec as any).minAvailable).toBeUndefined();
      expect((p.spec as any).unhealthyPodEvictionPolicy).toBe("AlwaysAllow");
      expect((p.spec as any).selector.matchLabels).toEqual(deployment(ms, component(p)!).spec.selector.matchLabels);
    }
  });

  it("spread every service's pods across nodes, preferred (ScheduleAnyway), not across zones", () => {
    for (const svc of SERVICES) {
      const d = deployment(ms, svc);
      expect(podSpec(ms, svc).topologySpreadConstraints, svc).toEqual([
        {
          maxSkew: 1,
          topologyKey: "kubernetes.io/hostname",
          whenUnsatisfiable: "ScheduleAnyway",
          labelSelector: { matchLabels: d.spec.selector.matchLabels },
          matchLabelKeys: ["pod-template-hash"],
        },
      ]);
    }
  });

  it("give every container its pod's name and namespace from the downward API", () => {
    for (const svc of SERVICES) {
      for (const c of podSpec(ms, svc).containers) {
        const env = Object.fromEntries(c.env.map((e: any) => [e.name, e.valueFrom]));
        expect(env.POD_NAME, svc).toEqual({ fieldRef: { fieldPath: "metadata.name" } });
        expect(env.POD_NAMESPACE, svc).toEqual({ fieldRef: { fieldPath: "metadata.namespace" } });
      }
    }
  });

  it("turn leader election on in the release namespace: 10s / 7s / 1500ms, the watcher's 6s / 4s / 1s", () => {
    for (const svc of SERVICES) {
      const [lease, renew, retry] = svc === "watcher" ? ["6s", "4s", "1s"] : ["10s", "7s", "1500ms"];
      expect(envOf(ms, svc), svc).toMatchObject({
        LEADER_ELECTION: "true",
        LEADER_ELECTION_NAMESPACE: NAMESPACE,
        LEADER_ELECTION_LEASE_DURATION: lease,
        LEADER_ELECTION_RENEW_DEADLINE: renew,
        LEADER_ELECTION_RETRY_PERIOD: retry,
        NATS_REPLICAS: "1",
      });
    }
  });

  it("the watcher's worst failover (heartbeat interval + leaseDuration + 2 retry periods) fits inside STATE_MAX_AGE", () => {
    const env = envOf(ms, "watcher");
    const s = (v: unknown) => Number(/^(\d+)s$/.exec(String(v))![1]);
    const heartbeat = 5; // the watcher's HEARTBEAT_INTERVAL default
    expect(heartbeat + s(env.LEADER_ELECTION_LEASE_DURATION) + 2 * s(env.LEADER_ELECTION_RETRY_PERIOD)).toBeLessThan(s(env.STATE_MAX_AGE));
  });

  it("grant each service get and update on its own election Lease and create on Leases, in the release namespace only", () => {
    for (const svc of SERVICES) {
      const grants = grantsOf(ms, { name: `lockstep-${svc}`, namespace: NAMESPACE }).filter((g) => g.namespace === NAMESPACE);
      expect(grants, svc).toEqual([
        { group: "coordination.k8s.io", resource: "leases", verb: "get", resourceNames: [`lockstep-${svc}`], namespace: NAMESPACE },
        { group: "coordination.k8s.io", resource: "leases", verb: "update", resourceNames: [`lockstep-${svc}`], namespace: NAMESPACE },
        { group: "coordination.k8s.io", resource: "leases", verb: "create", resourceNames: [], namespace: NAMESPACE },
      ]);
      const role = ms.find((m) => m.kind === "Role" && m.metadata.name === `lockstep-${svc}-leader-election`)!;
      expect(role.metadata.namespace).toBe(NAMESPACE);
      const binding = ms.find((m) => m.kind === "RoleBinding" && m.metadata.name === `lockstep-${svc}-leader-election`) as any;
      expect(binding.metadata.namespace).toBe(NAMESPACE);
      expect(binding.roleRef).toEqual({ apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: role.metadata.name });
      expect(binding.subjects).toEqual([{ kind: "ServiceAccount", name: `lockstep-${svc}`, namespace: NAMESPACE }]);
    }
    // Leader election itself needs no Events (the services' Events recorder has its own grant, checked in rbac.test.ts).
    const electionRoles = ms.filter((m) => m.kind === "Role" && m.metadata.name.endsWith("-leader-election"));
    expect(electionRoles).toHaveLength(SERVICES.length);
    expect(electionRoles.flatMap((r: any) => r.rules.flatMap((x: any) => x.resources))).not.toContain("events");
  });
});

it("names the election Leases lockstep-<service> whatever the release is called, in its namespace", () => {
  const ms = render({ fullnameOverride: "ls" }, { namespace: "ops", releaseName: "prod" });
  for (const svc of SERVICES) {
    expect(envOf(ms, svc).LEADER_ELECTION_NAMESPACE).toBe("ops");
    const grants = grantsOf(ms, { name: `ls-${svc}`, namespace: "ops" }).filter((g) => g.group === "coordination.k8s.io" && g.namespace === "ops");
    expect(grants.filter((g) => g.verb !== "create").map((g) => g.resourceNames)).toEqual([[`lockstep-${svc}`], [`lockstep-${svc}`]]);
  }
  expect(validateManifests(ms)).toEqual([]);
});

it("replicas: 1 renders no PodDisruptionBudget (one that would block a drain, or protect nothing)", () => {
  const ms = render(single);
  expect(ofKind(ms, "Deployment").map((d) => (d.spec as any).replicas)).toEqual([1, 1, 1, 1, 1]);
  expect(ofKind(ms, "PodDisruptionBudget")).toEqual([]);
  // Only the service at one replica loses its PDB.
  expect(ofKind(render({ skewEnforcer: { replicas: 1 } }), "PodDisruptionBudget").map(component).sort()).toEqual(
    SERVICES.filter((s) => s !== "skew-enforcer").sort(),
  );
});

it("a service's own leaderElection keys override the global ones, key by key", () => {
  const ms = render({ global: { leaderElection: { leaseDuration: "20s" } }, skewEnforcer: { leaderElection: { retryPeriod: "3s" } } });
  expect(envOf(ms, "skew-enforcer")).toMatchObject({ LEADER_ELECTION_LEASE_DURATION: "20s", LEADER_ELECTION_RENEW_DEADLINE: "7s", LEADER_ELECTION_RETRY_PERIOD: "3s" });
  expect(envOf(ms, "bootimage-updater")).toMatchObject({ LEADER_ELECTION_LEASE_DURATION: "20s", LEADER_ELECTION_RETRY_PERIOD: "1500ms" });
  expect(envOf(ms, "watcher")).toMatchObject({ LEADER_ELECTION_LEASE_DURATION: "6s" });
});

it("leader election off (one replica each): LEADER_ELECTION=false and no election Roles", () => {
  const ms = render(coalesce(single, { global: { leaderElection: { enabled: false } } }));
  for (const svc of SERVICES) expect(envOf(ms, svc).LEADER_ELECTION, svc).toBe("false");
  expect(ms.filter((m) => m.metadata.name.endsWith("-leader-election"))).toEqual([]);
  // Off for one service only.
  const one = render({ bootimageUpdater: { replicas: 1, leaderElection: { enabled: false } } });
  expect(envOf(one, "bootimage-updater").LEADER_ELECTION).toBe("false");
  expect(envOf(one, "watcher").LEADER_ELECTION).toBe("true");
  expect(one.filter((m) => m.kind === "Role" && m.metadata.name.endsWith("-leader-election")).map(component).sort()).toEqual(SERVICES.filter((s) => s !== "bootimage-updater").sort());
});

it("zones on request, and a service's own topologySpreadConstraints replace the generated ones", () => {
  const own = [{ maxSkew: 2, topologyKey: "example.com/rack", whenUnsatisfiable: "DoNotSchedule", labelSelector: { matchLabels: { "app.kubernetes.io/component": "lease-coordinator" } } }];
  const ms = render({
    global: { topologySpread: { hostname: { whenUnsatisfiable: "DoNotSchedule" }, zone: { enabled: true } } },
    leaseCoordinator: { topologySpreadConstraints: own },
  });
  expect(podSpec(ms, "watcher").topologySpreadConstraints.map((t: any) => [t.topologyKey, t.whenUnsatisfiable])).toEqual([
    ["kubernetes.io/hostname", "DoNotSchedule"],
    ["topology.kubernetes.io/zone", "ScheduleAnyway"],
  ]);
  expect(podSpec(ms, "lease-coordinator").topologySpreadConstraints).toEqual(own);
  expect(validateManifests(ms)).toEqual([]);
  const none = render({ global: { topologySpread: { hostname: { enabled: false } } } });
  expect(podSpec(none, "watcher").topologySpreadConstraints).toBeUndefined();
});

it("passes nats.replicas and a comma-separated list of seed URLs to every service", () => {
  const url = "nats://nats-0.nats-headless:4222,nats://nats-1.nats-headless:4222,nats://nats-2.nats-headless:4222";
  const ms = render({ global: { nats: { url, replicas: 3 } } });
  for (const svc of SERVICES) expect(envOf(ms, svc), svc).toMatchObject({ NATS_URL: url, NATS_REPLICAS: "3" });
});

describe("values.schema.json", () => {
  const defaults = chartDefaults(chartDir);
  it.each([
    ["nats.replicas 0", { global: { nats: { replicas: 0 } } }],
    ["nats.replicas 7 (JetStream allows 1 to 5)", { global: { nats: { replicas: 7 } } }],
    ["a NATS URL list with an entry that is no URL", { global: { nats: { url: "nats://a:4222,b:4222" } } }],
    ["a duration without a unit", { global: { leaderElection: { leaseDuration: "15" } } }],
    ["an unknown leaderElection key", { watcher: { leaderElection: { leaseDurationSeconds: 15 } } }],
    ["an unknown whenUnsatisfiable", { global: { topologySpread: { zone: { whenUnsatisfiable: "Maybe" } } } }],
    ["a PDB allowing no disruption (maxUnavailable 0)", { watcher: { pdb: { enabled: true, maxUnavailable: 0 } } }],
    ["a PDB allowing no disruption (maxUnavailable 0%)", { skewEnforcer: { pdb: { enabled: true, maxUnavailable: "0%" } } }],
  ])("rejects %s", (_what, user) => {
    expect(schemaErrors(chartDir, coalesce(defaults, user as Values)).length).toBeGreaterThan(0);
    expect(() => render(user as Values)).toThrow(ValuesSchemaError);
  });
});

describe("helm template fails with a clear message", () => {
  it.each([
    [
      "renewDeadline equal to leaseDuration (global)",
      { global: { leaderElection: { renewDeadline: "10s" } } },
      /leader election of the [a-z-]+ \([a-zA-Z]+\.leaderElection over global\.leaderElection\): renewDeadline \(10s\) must be shorter than leaseDuration \(10s\)/,
    ],
    [
      "renewDeadline longer than leaseDuration (one service)",
      { leaseCoordinator: { leaderElection: { leaseDuration: "10s", renewDeadline: "1m" } } },
      /leader election of the lease-coordinator \(leaseCoordinator\.leaderElection over global\.leaderElection\): renewDeadline \(1m\) must be shorter than leaseDuration \(10s\)/,
    ],
    [
      "renewDeadline within client-go's jitter of retryPeriod",
      { statusAggregator: { leaderElection: { retryPeriod: "6s" } } },
      /status-aggregator .*renewDeadline \(7s\) must be longer than 1\.2 x retryPeriod \(6s\)/,
    ],
    [
      "a watcher failover longer than stateMaxAge",
      { watcher: { leaderElection: { leaseDuration: "15s", renewDeadline: "10s", retryPeriod: "2s" } } },
      /the watcher's worst failover, HEARTBEAT_INTERVAL \(3s\) \+ leaseDuration \(15s\) \+ 2 x retryPeriod \(2s\), is not shorter than global\.stateMaxAge \(15s\)/,
    ],
    [
      "a watcher failover longer than stateMaxAge with its own HEARTBEAT_INTERVAL",
      { watcher: { extraEnv: [{ name: "HEARTBEAT_INTERVAL", value: "7500ms" }] } },
      /HEARTBEAT_INTERVAL \(7500ms\) \+ leaseDuration \(6s\) \+ 2 x retryPeriod \(1s\), is not shorter than global\.stateMaxAge \(15s\)/,
    ],
    [
      "a watcher failover longer than stateMaxAge with a fractional HEARTBEAT_INTERVAL",
      { watcher: { extraEnv: [{ name: "HEARTBEAT_INTERVAL", value: "7.5s" }] } },
      /HEARTBEAT_INTERVAL \(7\.5s\) \+ leaseDuration \(6s\) \+ 2 x retryPeriod \(1s\), is not shorter than global\.stateMaxAge \(15s\)/,
    ],
    [
      "leader election off with two replicas",
      { skewEnforcer: { leaderElection: { enabled: false } } },
      /leader election of the skew-enforcer \(skewEnforcer\.leaderElection over global\.leaderElection\) is off with skewEnforcer\.replicas 2: every replica would write/,
    ],
  ])("%s", (_what, values, message) => {
    expect(() => render(values as Values)).toThrow(message);
  });

  it.each([
    ["Lockstep's own lease namespace", "lockstep-leases", {}],
    ["a default foreign lease namespace", "medik8s-leases", {}],
    ["a configured foreign lease namespace", "infra-maintenance", { global: { leases: { foreign: [{ namespace: "infra-maintenance", naming: "node" }] } } }],
  ])("a release namespace that is also %s (election Leases would pass for node leases)", (_what, namespace, values) => {
    expect(() => render(values as Values, { namespace })).toThrow(
      new RegExp(`the release namespace ${namespace} is also a node lease namespace \\(global\\.leases\\): the election Lease lockstep-[a-z-]+ would be read as a node's lease`),
    );
  });

  it("and renders timings that keep the rules, in any unit", () => {
    const ms = render({ global: { leaderElection: { leaseDuration: "1m30s", renewDeadline: "1m", retryPeriod: "500ms" } }, watcher: { leaderElection: { retryPeriod: "1500ms" } } });
    expect(envOf(ms, "skew-enforcer")).toMatchObject({ LEADER_ELECTION_LEASE_DURATION: "1m30s", LEADER_ELECTION_RETRY_PERIOD: "500ms" });
    expect(envOf(ms, "watcher")).toMatchObject({ LEADER_ELECTION_RETRY_PERIOD: "1500ms" });
    // 6.5s + 6s + 2 x 1s is just below stateMaxAge (equal is refused, as the watcher's own config does).
    for (const value of ["6.5s", "2.5s"]) expect(() => render({ watcher: { extraEnv: [{ name: "HEARTBEAT_INTERVAL", value }] } })).not.toThrow();
  });
});
