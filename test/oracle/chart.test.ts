// The chart against a real kube-apiserver (the oracle, 1.20). The chart requires Kubernetes >= 1.27
// (Chart.yaml kubeVersion) and that stays: real helm refuses to install it on 1.20, which is checked.
// What can be checked is whether the server accepts the chart's objects: `helm template --kube-version
// 1.27.0` renders them and kubectl applies them server-side. 1.20 lacks policy/v1, so the chart's
// PodDisruptionBudgets are refused there and applied again as policy/v1beta1 (same fields); and 1.20
// drops fields it does not know without a word (no strict field validation before 1.25), so every
// rendered field is looked for in what the server stored, and the dropped ones must be the known ones.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startOracle, type Oracle } from "../../scripts/oracle/oracle.mjs";
import { toolOrSkip } from "../../scripts/tools.mjs";

const REPO = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const CHART = join(REPO, "deploy", "helm", "lockstep");
const NAMESPACE = "lockstep";
const helm = toolOrSkip("helm");
const kubectl = toolOrSkip("kubectl");

/**
 * Fields the 1.20 server drops from the chart's objects (it does not know them), as
 * "Kind/name: path". Each is newer than 1.20 and documented in scripts/oracle/README.md.
 */
const KNOWN_DROPPED: string[] = [];

/**
 * Fields the chart sets that are newer than 1.20 and that the chart's minimum (1.27) serves: 1.20's
 * OpenAPI does not know them, so kubectl's client-side check would refuse the objects. They are
 * taken out before the objects are sent (and are not looked for in what the server stored).
 */
const NEWER_THAN_1_20: Array<{ what: string; strip(o: any): void }> = [
  // 1.26+, beta and on by default from 1.27: unhealthy pods may be evicted whatever the budget.
  { what: "PodDisruptionBudget .spec.unhealthyPodEvictionPolicy", strip: (o) => o.kind === "PodDisruptionBudget" && delete o.spec?.unhealthyPodEvictionPolicy },
  // 1.27+ beta: the spread counts only the pods of the same ReplicaSet (pod-template-hash).
  { what: "Deployment .spec.template.spec.topologySpreadConstraints[].matchLabelKeys", strip: (o) => o.kind === "Deployment" && (o.spec?.template?.spec?.topologySpreadConstraints ?? []).forEach((c: any) => delete c.matchLabelKeys) },
];

/** Paths of `rendered` (objects and arrays, by key and index) that `stored` lacks. */
function missingPaths(rendered: unknown, stored: unknown, path = ""): string[] {
  if (rendered === null || typeof rendered !== "object") return [];
  if (stored === null || typeof stored !== "object") return [path || "."];
  const out: string[] = [];
  for (const [k, v] of Object.entries(rendered)) {
    const p = Array.isArray(rendered) ? `${path}[${k}]` : `${path}.${k}`;
    if (!(k in (stored as Record<string, unknown>))) out.push(p);
    else out.push(...missingPaths(v, (stored as Record<string, unknown>)[k], p));
  }
  return out;
}

/** kubectl's `-o json` of several objects: one JSON document after another (a List only sometimes). */
function jsonStream(text: string): any[] {
  const out: any[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "{") {
      if (depth++ === 0) start = i;
    } else if (c === "}" && --depth === 0) out.push(JSON.parse(text.slice(start, i + 1)));
  }
  return out.flatMap((o) => (o.kind === "List" ? o.items : [o]));
}

/** The rendered manifest split into documents, with their top-level kind and apiVersion. */
function documents(text: string): Array<{ kind: string; apiVersion: string; text: string }> {
  return text
    .split(/^---\s*$/m)
    .map((t) => t.trim())
    .filter((t) => /^kind:/m.test(t))
    .map((t) => ({ kind: /^kind:\s*(\S+)/m.exec(t)![1]!, apiVersion: /^apiVersion:\s*(\S+)/m.exec(t)![1]!, text: t }));
}

describe.skipIf(helm.skip || kubectl.skip)("the chart against kube-apiserver (the oracle)", () => {
  let oracle: Oracle;
  let dir: string;
  const run = (cmd: string, args: string[], input?: string) => spawnSync(cmd, args, { encoding: "utf8", input, env: { ...process.env, KUBECONFIG: oracle.kubeconfig, HELM_CACHE_HOME: join(dir, "helm-cache"), HELM_CONFIG_HOME: join(dir, "helm-config"), HELM_DATA_HOME: join(dir, "helm-data") } });
  const kube = (args: string[], input?: string) => {
    const r = run(kubectl.path!, args, input);
    if (r.status !== 0) throw new Error(`kubectl ${args.join(" ")}: ${r.stderr}`);
    return r.stdout;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "lockstep-oracle-chart-"));
    oracle = await startOracle();
  }, 120_000);
  afterAll(async () => {
    await oracle?.stop();
  });

  it("finds a dropped field (the check below can fail)", () => {
    const rendered = { spec: { template: { spec: { containers: [{ name: "a", ports: [{ containerPort: 1 }] }], newField: { x: 1 } } } } };
    const stored = { spec: { template: { spec: { containers: [{ name: "a", ports: [{ containerPort: 1, protocol: "TCP" }] }] } } } };
    expect(missingPaths(rendered, stored)).toEqual([".spec.template.spec.newField"]);
    expect(missingPaths({ a: [{ b: 1 }, { c: 2 }] }, { a: [{ b: 1 }] })).toEqual([".a[1]"]);
  });

  it("is refused by real helm on 1.20, because of the chart's kubeVersion", () => {
    const r = run(helm.path!, ["install", "lockstep", CHART, "--namespace", NAMESPACE, "--create-namespace"]);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/chart requires kubeVersion: >=1\.27\.0-0 which is incompatible with Kubernetes v1\.20/);
    // Nothing of the release was written...
    expect(kube(["get", "namespaces", "-o", "name"])).not.toContain(`namespace/${NAMESPACE}`);
    // ...but helm installs the crds/ folder before it checks kubeVersion (helm's Install runs
    // installCRDs first): the chart's CRDs are left behind. Removed for the next test.
    const left = kube(["get", "crd", "-o", "name"]).split("\n").filter((n) => n.endsWith(".update.openshift.io") || n.endsWith(".lockstep.io"));
    expect(left.length).toBeGreaterThan(0);
    kube(["delete", ...left, "--wait=true"]);
  });

  it("renders for 1.27 and every object is accepted by the server (PDBs as policy/v1beta1), no field dropped beyond the known ones", () => {
    const rendered = execFileSync(helm.path!, ["template", "lockstep", CHART, "--namespace", NAMESPACE, "--kube-version", "1.27.0", "--include-crds"], { encoding: "utf8" });
    const docs = documents(rendered);
    expect(docs.length).toBeGreaterThan(20);
    // The release's namespace (helm's --create-namespace), and OpenShift's own that the chart's Roles live in.
    for (const ns of [NAMESPACE, "openshift-machine-api", "openshift-machine-config-operator"]) kube(["create", "namespace", ns]);
    const file = (name: string, ds: typeof docs) => {
      const f = join(dir, name);
      writeFileSync(f, ds.map((d) => d.text).join("\n---\n") + "\n");
      return f;
    };
    // CRDs first: the chart's own NodeDisruptionPolicy needs its type served.
    // The Update Status API CRDs carry CEL rules (x-kubernetes-validations, Kubernetes 1.25+), which
    // kubectl's client-side check against 1.20's OpenAPI and 1.20's server-side apply refuse: a plain
    // create is accepted, and the server drops them (it ignores fields it does not know) and nothing else.
    const crds = docs.filter((d) => d.kind === "CustomResourceDefinition");
    // helm's --include-crds also prints the crds/ folder's copies of CRDs the templates render: once each.
    const wantCrds = [...new Map(jsonStream(kube(["create", "--dry-run=client", "--validate=false", "-o", "json", "-f", file("crds.yaml", crds)])).map((o: any) => [o.metadata.name, o])).values()];
    const crdFile = join(dir, "crds.json");
    writeFileSync(crdFile, JSON.stringify({ apiVersion: "v1", kind: "List", items: wantCrds }));
    const storedCrds = new Map(jsonStream(kube(["create", "--validate=false", "-o", "json", "-f", crdFile])).map((o: any) => [o.metadata.name, o]));
    kube(["wait", "--for", "condition=established", "--timeout=60s", "crd", "--all"]);
    const crdDropped = wantCrds.flatMap((o: any) => missingPaths(o.spec, storedCrds.get(o.metadata.name)?.spec, ".spec").map((p) => `${o.metadata.name}: ${p}`));
    expect(crdDropped.filter((p) => !/\.x-kubernetes-validations$/.test(p))).toEqual([]);

    // policy/v1 is not served by 1.20: the PDBs are refused as they are...
    const pdbs = docs.filter((d) => d.kind === "PodDisruptionBudget");
    expect(pdbs.length).toBeGreaterThan(0);
    const refused = run(kubectl.path!, ["apply", "--server-side", "-f", file("pdbs-v1.yaml", pdbs)]);
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain('no matches for kind "PodDisruptionBudget" in version "policy/v1"');
    // ...and accepted with the same fields as policy/v1beta1.
    const rest = docs
      .filter((d) => d.kind !== "CustomResourceDefinition")
      .map((d) => (d.kind === "PodDisruptionBudget" ? { ...d, apiVersion: "policy/v1beta1", text: d.text.replace(/^apiVersion:\s*policy\/v1\s*$/m, "apiVersion: policy/v1beta1") } : d));
    // As JSON, without the fields newer than 1.20 (above); every other field is then looked for in what the server stored.
    const want = jsonStream(kube(["create", "--dry-run=client", "--validate=false", "-o", "json", "-f", file("objects.yaml", rest)]));
    for (const o of want) for (const n of NEWER_THAN_1_20) n.strip(o);
    const restFile = join(dir, "objects.json");
    writeFileSync(restFile, JSON.stringify({ apiVersion: "v1", kind: "List", items: want }));
    const stored = jsonStream(kube(["apply", "--server-side", "-o", "json", "-f", restFile]));
    const key = (o: any) => `${o.kind}/${o.metadata.namespace ?? ""}/${o.metadata.name}`;
    const byKey = new Map(stored.map((o: any) => [key(o), o]));
    expect(byKey.size).toBe(rest.length);
    const dropped: string[] = [];
    expect(want.length).toBe(rest.length);
    for (const o of want) {
      const s = byKey.get(key(o));
      expect(s, key(o)).toBeDefined();
      // A Secret's stringData is stored as data; status and creation stamps are the server's.
      const { stringData: _s, status: _st, ...mine } = o;
      const { creationTimestamp: _c, ...meta } = mine.metadata ?? {};
      for (const p of missingPaths({ ...mine, metadata: meta }, s)) dropped.push(`${o.kind}/${o.metadata.name}: ${p}`);
    }
    expect(dropped).toEqual(KNOWN_DROPPED);
  });
});
