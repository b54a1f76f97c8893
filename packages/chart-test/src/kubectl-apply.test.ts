// What helm renders, applied by kubectl 1.31 with validation on: kubectl sends
// fieldValidation=Strict (kube-sim publishes OpenAPI v3), so an undeclared field in any built-in or
// Lockstep object of the chart is refused by the server — helm install itself asks for no field
// validation.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { kubeconfigYaml, startKubeSim, type KubeSim } from "@lockstep/kube-sim";
import { kubectlRunner } from "@lockstep/testing";
import { parse, stringify } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toolOrSkip } from "../../../scripts/tools.mjs";
import { registerMissingKinds } from "./apply.js";
import { chartCrds, renderChart, type Manifest, type Values } from "./chart.js";
import { helmVersion } from "./helm.js";
import { chartDir } from "./paths.js";

const maxValues = parse(readFileSync(join(chartDir, "ci/max-values.yaml"), "utf8")) as Values;

// .tools/kubectl (1.31), or KUBECTL_BIN.
describe(`kubectl apply (validation on) of what helm ${helmVersion()} renders, against kube-sim`, () => {
  let sim: KubeSim;
  let dir: string;
  let kubectlBin: string;

  beforeAll(async () => {
    const t = toolOrSkip("kubectl");
    if (t.skip !== undefined) throw new Error(t.skip);
    kubectlBin = t.path;
    sim = await startKubeSim({ crds: "openshift" });
    registerMissingKinds(sim);
    dir = mkdtempSync(join(tmpdir(), "lockstep-chart-kubectl-"));
    writeFileSync(join(dir, "kubeconfig"), kubeconfigYaml(sim), { mode: 0o600 });
  });
  afterAll(async () => {
    await sim?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const kubectl = kubectlRunner(() => kubectlBin, () => join(dir, "kubeconfig"), () => ({ ...process.env, KUBECACHEDIR: join(dir, "cache") }));

  /** The manifests as `helm install` would send them: the release namespace on namespaced objects. */
  const asInstalled = (ms: Manifest[], namespace: string) =>
    ms.map(({ source: _source, ...m }) => {
      const namespaced = sim.store.registry.forObject(m.apiVersion, m.kind)?.namespaced;
      if (namespaced) {
        m.metadata = { ...m.metadata, namespace: m.metadata.namespace ?? namespace };
        sim.store.ensureNamespace(m.metadata.namespace!);
      }
      return m;
    });

  it.each([
    ["default values", {} as Values, "lockstep"],
    ["ci/max-values.yaml", maxValues, "lockstep-max"],
  ])("accepts every object rendered with %s", async (_name, values, namespace) => {
    const objects = asInstalled([...chartCrds(chartDir), ...renderChart(chartDir, { values, namespace, releaseName: namespace }).manifests], namespace);
    const file = join(dir, `${namespace}.yaml`);
    writeFileSync(file, objects.map((o) => stringify(o)).join("---\n"));
    const r = await kubectl("apply", "-f", file);
    // Objects kube-sim or this test made first (the shipped CRDs, namespaces) only draw kubectl's
    // missing-annotation warning.
    expect(r.err.split("\n").filter((l) => l && !l.includes("kubectl.kubernetes.io/last-applied-configuration annotation"))).toEqual([]);
    expect(r.code).toBe(0);
    expect(r.out.trim().split("\n")).toHaveLength(objects.length);
  });

  it("refuses a rendered object with a misspelt field, naming it", async () => {
    const role = renderChart(chartDir, { namespace: "lockstep" }).manifests.find((m) => m.kind === "ClusterRole")!;
    const [bad] = asInstalled([{ ...role, metadata: { ...role.metadata, name: "misspelt" }, rules: [{ apiGroups: [""], resources: ["nodes"], verb: ["get"] }] } as Manifest], "lockstep");
    const file = join(dir, "bad.yaml");
    writeFileSync(file, stringify(bad));
    const r = await kubectl("apply", "-f", file);
    expect(r.code).not.toBe(0);
    expect(r.err).toContain('ClusterRole in version "v1" cannot be handled as a ClusterRole: strict decoding error: unknown field "rules[0].verb"');
  });
});
