// RBAC agrees with the code: every Kubernetes API call each service's source makes is granted, and
// nothing else is. Plus the rules of who may touch what.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { Resources } from "@lockstep/kube";
import { describe, expect, it } from "vitest";
import { chartDir, servicesDir } from "./paths.js";
import { grantsOf, type Grant } from "./rbac-chart.js";
import { scanSources, tripleKey } from "./rbac-scan.js";
import { renderChart } from "./chart.js";

const SERVICES = ["watcher", "lease-coordinator", "skew-enforcer", "bootimage-updater", "status-aggregator"];
const NAMESPACE = "lockstep";


function sources(service: string): Record<string, string> {
  const root = join(servicesDir, service, "src");
  const walk = (dir: string): string[] =>
    readdirSync(dir).flatMap((f) => {
      const p = join(dir, f);
      return statSync(p).isDirectory() ? walk(p) : [p];
    });
  // test-harness.ts: the service's shared integration-test set-up, not run-time code.
  const files = walk(root).filter((p) => p.endsWith(".ts") && !p.endsWith(".test.ts") && !p.endsWith(".d.ts") && p !== join(root, "test-harness.ts"));
  return Object.fromEntries(files.map((p) => [`services/${service}/src/${relative(root, p)}`, readFileSync(p, "utf8")]));
}

// Every code path's grants are compared, the lease webhook's (an opt-in) included.
const { manifests } = renderChart(chartDir, { namespace: NAMESPACE, values: { leaseWebhook: { enabled: true } } });
const grants = (svc: string) => grantsOf(manifests, { name: `lockstep-${svc}`, namespace: NAMESPACE });
/** What packages/kube's LeaderElector calls (ha.test.ts checks the Role's names and namespace). */
const ELECTION_CALLS = ["get", "create", "update"].map((verb) => tripleKey({ group: "coordination.k8s.io", resource: "leases", verb }));
/** A grant of the service's leader-election Role: Leases in the release namespace (ha.test.ts checks it exactly). */
const election = (g: Grant) => g.group === "coordination.k8s.io" && g.resource === "leases" && g.namespace === NAMESPACE;
/** What packages/kube's EventRecorder calls, for a service whose code builds one (the skeleton's serviceEventRecorder). */
const EVENT_CALLS = ["create", "patch"].map((verb) => tripleKey({ group: "events.k8s.io", resource: "events", verb }));
const recordsEvents = (files: Record<string, string>) => Object.values(files).some((text) => /\bserviceEventRecorder\(/.test(text));

describe.each(SERVICES)("%s", (svc) => {
  const files = sources(svc);
  const scan = scanSources(files, Resources);
  const library = [...ELECTION_CALLS, ...(recordsEvents(files) ? EVENT_CALLS : [])];

  it("makes only API calls the scanner can resolve", () => {
    expect(scan.unresolved).toEqual([]);
  });

  it("is granted exactly the (apiGroup, resource, verb) its code uses", () => {
    // Every service runs the skeleton's leader election (packages/skeleton/src/leader.ts, outside the
    // scanned sources): get, create and update on its Lease.
    // A service that records Kubernetes Events creates and patches them through packages/kube's EventRecorder.
    const code = new Set([...scan.calls.map(tripleKey), ...library]);
    const chart = new Set(grants(svc).map(tripleKey));
    const where = (k: string) =>
      ELECTION_CALLS.includes(k) ? ["the skeleton's leader election"] : EVENT_CALLS.includes(k) ? ["the skeleton's serviceEventRecorder"] : scan.calls.filter((c) => tripleKey(c) === k).map((c) => `${c.call} at ${c.file}:${c.line}`);
    const missing = [...code].filter((k) => !chart.has(k)).map((k) => `${k} (called by ${where(k).join(", ")})`);
    const extra = [...chart].filter((k) => !code.has(k));
    expect({ missing, extra }).toEqual({ missing: [], extra: [] });
  });

  it("gets an API token only when it calls the API", () => {
    const sa = manifests.find((m) => m.kind === "ServiceAccount" && m.metadata.name === `lockstep-${svc}`)!;
    expect(sa.automountServiceAccountToken).toBe(scan.calls.length > 0);
  });
});

describe("the lease webhook's look-ups", () => {
  it("are granted only with leaseWebhook.enabled", () => {
    const off = { leaseWebhook: { enabled: false } };
    const defaults = grantsOf(renderChart(chartDir, { namespace: NAMESPACE, values: off }).manifests, { name: "lockstep-lease-coordinator", namespace: NAMESPACE }).map(tripleKey);
    expect(defaults).not.toContain("|pods|get");
    expect(defaults).not.toContain("machine.openshift.io|machines|get");
    expect(grants("lease-coordinator").map(tripleKey)).toEqual(expect.arrayContaining(["|pods|get", "machine.openshift.io|machines|get"]));
  });
});

describe("who may touch what", () => {
  // Besides each service's own election Lease (ha.test.ts).
  const all = SERVICES.flatMap((svc) => grants(svc).filter((g) => !election(g)).map((g) => ({ ...g, svc })));
  const writers = (group: string, resource: string) =>
    [...new Set(all.filter((g) => g.group === group && g.resource.split("/")[0] === resource && !["get", "list", "watch"].includes(g.verb)).map((g) => g.svc))];

  it("the watcher only gets, lists and watches (but for its own election Lease)", () => {
    expect(grants("watcher").length).toBeGreaterThan(0);
    expect(grants("watcher").filter((g) => !election(g) && !["get", "list", "watch"].includes(g.verb))).toEqual([]);
  });

  it("only the lease-coordinator writes node Leases, and only in Lockstep's lease namespace", () => {
    expect(writers("coordination.k8s.io", "leases")).toEqual(["lease-coordinator"]);
    const leaseGrants = grants("lease-coordinator").filter((g) => g.resource === "leases" && !election(g));
    expect(new Set(leaseGrants.map((g) => g.namespace))).toEqual(new Set(["lockstep-leases"]));
  });

  it("only the bootimage-updater patches MachineSets", () => {
    expect(writers("machine.openshift.io", "machinesets")).toEqual(["bootimage-updater"]);
  });

  it("only the skew-enforcer writes ClusterOperators, and updates only ClusterOperator lockstep", () => {
    expect(writers("config.openshift.io", "clusteroperators")).toEqual(["skew-enforcer"]);
    const co = grants("skew-enforcer").filter((g) => g.resource.startsWith("clusteroperators") && g.verb !== "create");
    expect(co.length).toBeGreaterThan(0);
    for (const g of co) expect(g.resourceNames).toEqual(["lockstep"]);
  });

  it("the status-aggregator only patches NodeDisruptionPolicy status and writes the Update Status API", () => {
    const other = grants("status-aggregator").filter((g) => !election(g) && g.group !== "update.openshift.io" && g.group !== "apiextensions.k8s.io");
    expect(other.map((g) => `${g.group}|${g.resource}|${g.verb}`)).toEqual(["lockstep.io|nodedisruptionpolicies/status|patch"]);
    const crds = grants("status-aggregator").filter((g) => g.group === "apiextensions.k8s.io");
    for (const g of crds) expect([g.verb, g.resourceNames.every((n) => n.endsWith(".update.openshift.io"))]).toEqual(["get", true]);
    const off = { statusAggregator: { updateStatusApi: { enabled: false, writesPerSecond: 20, writeBurst: 50 } } };
    const without = grantsOf(renderChart(chartDir, { namespace: NAMESPACE, values: off }).manifests, { name: "lockstep-status-aggregator", namespace: NAMESPACE });
    expect(without.filter((g) => !election(g)).map((g) => `${g.group}|${g.resource}|${g.verb}`)).toEqual(["lockstep.io|nodedisruptionpolicies/status|patch"]);
  });
});

describe("LEASE_AUTH: what the lease-coordinator may ask the API server", () => {
  const reviews = (mode: string) =>
    grantsOf(renderChart(chartDir, { namespace: NAMESPACE, values: { leaseAuth: { mode } } }).manifests, { name: "lockstep-lease-coordinator", namespace: NAMESPACE })
      .filter((g) => g.group.startsWith("authentication.") || g.group.startsWith("authorization."))
      .map((g) => `${g.group}|${g.resource}|${g.verb}|${g.namespace || "cluster"}`)
      .sort();
  const tokenReview = "authentication.k8s.io|tokenreviews|create|cluster";
  const accessReview = "authorization.k8s.io|subjectaccessreviews|create|cluster";

  it.each([
    ["token", [tokenReview, accessReview]],
    ["token,mtls", [tokenReview, accessReview]],
    ["mtls", [accessReview]],
    ["none", []],
  ])("mode %s: %j", (mode, expected) => {
    expect(reviews(mode)).toEqual(expected);
  });
});
