// The chart renders, validates and applies, with default values and with every option on.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { kubeConfigForUrl } from "@lockstep/kube/client-node";
import { lockstepCrdsDir, startKubeSim, type KubeSim } from "@lockstep/kube-sim";
import { parse } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyManifests, readBack, registerMissingKinds } from "./apply.js";
import { chartCrds, renderChart, schemaErrors, ValuesSchemaError, coalesce, type Values } from "./chart.js";
import { helmVersion } from "./helm.js";
import { chartDir, repoRoot } from "./paths.js";
import { validateManifests } from "./validate.js";

const maxValues = parse(readFileSync(join(chartDir, "ci/max-values.yaml"), "utf8")) as Values;
const defaults = parse(readFileSync(join(chartDir, "values.yaml"), "utf8")) as Values;
const SERVICES = ["watcher", "lease-coordinator", "skew-enforcer", "bootimage-updater", "status-aggregator"];

describe("copies kept identical to their sources", () => {
  it("crds/ holds exactly packages/kube-sim/crds/lockstep/ (besides OpenShift's Update Status API CRDs and their NOTICE)", () => {
    const src = readdirSync(lockstepCrdsDir).sort();
    const updateApi = (f: string) => f.endsWith(".update.openshift.io.yaml") || f === "NOTICE.update-status-api";
    expect(readdirSync(join(chartDir, "crds")).filter((f) => !updateApi(f)).sort()).toEqual(src);
    for (const f of src) expect(readFileSync(join(chartDir, "crds", f), "utf8"), f).toBe(readFileSync(join(lockstepCrdsDir, f), "utf8"));
  });

  it("files/nodedisruptionpolicies/ holds exactly packages/disruption/defaults/", () => {
    const dir = join(repoRoot, "packages/disruption/defaults");
    const src = readdirSync(dir).sort();
    expect(readdirSync(join(chartDir, "files/nodedisruptionpolicies")).sort()).toEqual(src);
    for (const f of src) expect(readFileSync(join(chartDir, "files/nodedisruptionpolicies", f), "utf8"), f).toBe(readFileSync(join(dir, f), "utf8"));
  });
});

describe("values.schema.json", () => {
  it("accepts the default values and the maximal values file", () => {
    expect(schemaErrors(chartDir, defaults)).toEqual([]);
    expect(schemaErrors(chartDir, coalesce(defaults, maxValues))).toEqual([]);
  });

  it.each([
    ["a top-level key", { replicas: 2 }, "/: must NOT have additional properties: replicas"],
    ["a key under global.nats", { global: { nats: { servers: "x" } } }, "/global/nats: must NOT have additional properties: servers"],
    ["a key in a service block", { watcher: { replica: 2 } }, "/watcher: must NOT have additional properties: replica"],
    ["a key in a service's image", { skewEnforcer: { image: { digest: "sha256:0" } } }, "/skewEnforcer/image: must NOT have additional properties: digest"],
  ])("rejects an unknown key: %s", (_what, user, message) => {
    const errors = schemaErrors(chartDir, coalesce(defaults, user as Values));
    expect(errors.map((e) => e.replace(/^- \(root\)/, "- /"))).toContain(`- ${message}`);
    expect(() => renderChart(chartDir, { values: user as Values })).toThrow(ValuesSchemaError);
  });

  it("rejects values of the wrong type or out of range", () => {
    expect(schemaErrors(chartDir, coalesce(defaults, { watcher: { replicas: -1 } }))).toHaveLength(1);
    expect(schemaErrors(chartDir, coalesce(defaults, { global: { nats: { auth: { mode: "token" } } } }))).toHaveLength(1);
    expect(schemaErrors(chartDir, coalesce(defaults, { leaseCoordinator: { logLevel: "verbose" } }))).toHaveLength(1);
  });
});

describe.each([
  ["default values", {} as Values],
  ["ci/max-values.yaml", maxValues],
])(`helm ${helmVersion()} template with %s`, (_name, values) => {
  const rendered = renderChart(chartDir, { values, namespace: "lockstep" });
  const count = (kind: string) => rendered.manifests.filter((m) => m.kind === kind).length;

  it("passes the structural validation of every manifest", () => {
    expect(validateManifests(rendered.manifests)).toEqual([]);
  });

  it("has one Deployment, ServiceAccount, Service, PDB and NetworkPolicy per service", () => {
    for (const kind of ["Deployment", "ServiceAccount", "Service", "PodDisruptionBudget", "NetworkPolicy"]) expect(count(kind), kind).toBe(5);
    const components = rendered.manifests.filter((m) => m.kind === "Deployment").map((m) => m.metadata.labels?.["app.kubernetes.io/component"]);
    expect(components.sort()).toEqual([...SERVICES].sort());
  });

  it("runs each service's own entry point with its own ports", () => {
    const ports: Record<string, [number, number]> = {
      watcher: [9090, 8090],
      "lease-coordinator": [9091, 8091],
      "skew-enforcer": [9092, 8092],
      "bootimage-updater": [9093, 8093],
      "status-aggregator": [9094, 8094],
    };
    for (const d of rendered.manifests.filter((m) => m.kind === "Deployment")) {
      const name = d.metadata.labels!["app.kubernetes.io/component"]!;
      const c = (d.spec as any).template.spec.containers[0];
      expect(c.command).toEqual(["node", `services/${name}/dist/main.js`]);
      const env = Object.fromEntries(c.env.filter((e: any) => "value" in e).map((e: any) => [e.name, e.value]));
      expect([Number(env.GRPC_PORT), Number(env.HTTP_PORT)]).toEqual(ports[name]);
      // The lease webhook (leaseWebhook.enabled) adds its own port to the lease-coordinator.
      expect(c.ports.filter((p: any) => p.name !== "webhook").map((p: any) => p.containerPort)).toEqual(ports[name]);
    }
  });

  it("caps each service's V8 old space and young generation well below its container memory limit", () => {
    const mib = (q: string) => Number(/^(\d+)Mi$/.exec(q)?.[1] ?? /^(\d+)Gi$/.exec(q)?.[1]) * (q.endsWith("Gi") ? 1024 : 1);
    for (const d of rendered.manifests.filter((m) => m.kind === "Deployment")) {
      const name = d.metadata.labels!["app.kubernetes.io/component"]!;
      const c = (d.spec as any).template.spec.containers[0];
      const options = c.env.find((e: any) => e.name === "NODE_OPTIONS")?.value as string | undefined;
      const m = /^--max-old-space-size=(\d+) --max-semi-space-size=(\d+)$/.exec(options ?? "");
      const [heap, semi] = [Number(m?.[1]), Number(m?.[2])];
      const limit = mib(c.resources.limits.memory);
      expect(heap, name).toBeGreaterThan(0);
      expect(semi, name).toBeGreaterThan(0);
      // Room for the young generation (three semi-spaces), code and buffers outside the old space.
      expect(heap + 3 * semi, name).toBeLessThanOrEqual(limit * 0.65);
    }
  });

  it("includes the default NodeDisruptionPolicy objects verbatim", () => {
    const source = parse(readFileSync(join(repoRoot, "packages/disruption/defaults/lockstep-defaults.yaml"), "utf8"));
    const ndp = rendered.manifests.find((m) => m.kind === "NodeDisruptionPolicy");
    const { source: _file, ...obj } = ndp!;
    expect(obj).toEqual(source);
  });
});

it("turns V8's optimize-for-size mode on where optimizeForSize says: by default the watcher and the status-aggregator", () => {
  const optimized = (values: Values) =>
    Object.fromEntries(
      renderChart(chartDir, { values })
        .manifests.filter((m) => m.kind === "Deployment")
        .map((d) => [d.metadata.labels!["app.kubernetes.io/component"]!, (d.spec as any).template.spec.containers[0].env.find((e: any) => e.name === "V8_OPTIMIZE_FOR_SIZE")?.value]),
    );
  const only = (on: string[]) => Object.fromEntries(SERVICES.map((s) => [s, on.includes(s) ? "true" : undefined]));
  expect(optimized({})).toEqual(only(["watcher", "status-aggregator"]));
  expect(optimized({ statusAggregator: { optimizeForSize: false }, leaseCoordinator: { optimizeForSize: true } })).toEqual(only(["watcher", "lease-coordinator"]));
});

it("renders nothing for a disabled service and no policies when asked not to", () => {
  const r = renderChart(chartDir, { values: { statusAggregator: { enabled: false }, defaultNodeDisruptionPolicies: { enabled: false } } });
  expect(r.manifests.filter((m) => m.metadata.labels?.["app.kubernetes.io/component"] === "status-aggregator")).toEqual([]);
  expect(r.manifests.filter((m) => m.kind === "NodeDisruptionPolicy")).toEqual([]);
  expect(validateManifests(r.manifests)).toEqual([]);
});

it("fails rendering with Helm's required message when a needed secret name is missing", () => {
  expect(() => renderChart(chartDir, { values: { global: { nats: { auth: { existingSecret: "" } } } } })).toThrow(/existingSecret is required/);
});

describe("applying to kube-sim", () => {
  let sim: KubeSim;
  beforeAll(async () => {
    sim = await startKubeSim({ crds: "openshift" });
    registerMissingKinds(sim);
  });
  afterAll(async () => sim?.stop());

  it.each([
    ["default values", {} as Values, "lockstep"],
    ["ci/max-values.yaml", maxValues, "lockstep-max"],
  ])("applies the CRDs and every manifest rendered with %s", async (_name, values, namespace) => {
    const kc = kubeConfigForUrl(sim.url);
    const { manifests } = renderChart(chartDir, { values, namespace, releaseName: namespace });
    // What `helm install --create-namespace` and the cluster itself provide.
    const env = [namespace, "openshift-machine-config-operator", "openshift-machine-api"].map((name) => ({
      source: "(cluster)",
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name },
    }));
    const all = [...chartCrds(chartDir), ...env, ...manifests];
    const result = await applyManifests(kc, all);
    expect(result.created + result.replaced).toBe(all.length);
    for (const m of manifests) {
      const back = await readBack(kc, m);
      expect(back?.metadata?.name, `${m.kind}/${m.metadata.name}`).toBe(m.metadata.name);
    }
    // The policies went through the CRD's schema (pruning) unchanged.
    const ndp = manifests.find((m) => m.kind === "NodeDisruptionPolicy")!;
    expect(((await readBack(kc, ndp)) as any).spec).toEqual((ndp as any).spec);
  });
});
