// `helm install`, `helm upgrade` and `helm uninstall` of the chart against kube-sim, with the
// default values and ci/max-values.yaml: helm talks to the API server as to a cluster (discovery,
// OpenAPI v3 with server-side field validation, its release Secrets, resource creation and deletion).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { kubeConfigForUrl } from "@lockstep/kube/client-node";
import { kubeconfigYaml, startKubeSim, type KubeSim } from "@lockstep/kube-sim";
import { parse } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readBack, registerMissingKinds } from "./apply.js";
import { splitTemplateOutput, type Manifest, type Values } from "./chart.js";
import { helmAsync, helmVersion } from "./helm.js";
import { chartDir } from "./paths.js";

const maxValues = parse(readFileSync(join(chartDir, "ci/max-values.yaml"), "utf8")) as Values;

describe(`helm ${helmVersion()} install, upgrade and uninstall against kube-sim`, () => {
  let sim: KubeSim;
  let dir: string;
  let kubeconfig: string;

  beforeAll(async () => {
    sim = await startKubeSim({ crds: "openshift" });
    registerMissingKinds(sim);
    // Namespaces an OpenShift cluster has; the chart puts Roles and RoleBindings there.
    for (const ns of ["openshift-machine-config-operator", "openshift-machine-api"]) sim.store.ensureNamespace(ns);
    dir = mkdtempSync(join(tmpdir(), "lockstep-chart-install-"));
    kubeconfig = join(dir, "kubeconfig");
    writeFileSync(kubeconfig, kubeconfigYaml(sim), { mode: 0o600 });
  });
  afterAll(async () => {
    await sim?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const helm = (...args: string[]) => helmAsync([...args, "--kubeconfig", kubeconfig]);
  // helm fills in the release namespace for namespaced objects that name none.
  const find = (m: Manifest, release: string) => {
    const namespaced = sim.store.registry.forObject(m.apiVersion, m.kind)?.namespaced;
    return readBack(kubeConfigForUrl(sim.url), { ...m, metadata: { ...m.metadata, namespace: namespaced ? (m.metadata.namespace ?? release) : undefined } });
  };
  const releaseSecrets = (ns: string, release: string) =>
    [...sim.store.state(sim.store.registry.get("", "secrets")!).objects.values()]
      .map((e) => e.obj)
      .filter((o) => o.metadata?.namespace === ns && o.metadata?.labels?.owner === "helm" && o.metadata?.labels?.name === release);

  it.each([
    ["default values", {} as Values, "lockstep"],
    ["ci/max-values.yaml", maxValues, "lockstep-max"],
  ])("with %s", async (_name, values, release) => {
    const valuesFile = join(dir, `${release}.json`);
    writeFileSync(valuesFile, JSON.stringify(values));

    const installed = await helm("install", release, chartDir, "--namespace", release, "--create-namespace", "-f", valuesFile);
    expect(installed).toMatch(/STATUS: deployed/);
    expect(installed).toMatch(/REVISION: 1/);
    // Every object of the release is on the server (the CRDs came from crds/ first).
    const { manifests } = splitTemplateOutput(await helm("get", "manifest", release, "--namespace", release));
    expect(manifests.length).toBeGreaterThan(20);
    for (const m of manifests) {
      const back = await find(m, release);
      expect(back?.metadata?.labels?.["app.kubernetes.io/managed-by"], `${m.kind}/${m.metadata.name}`).toBe("Helm");
    }
    for (const crd of ["nodedisruptionpolicies.lockstep.io", "disruptionbudgets.lockstep.io", "bootimagepolicies.lockstep.io"])
      expect(sim.store.registry.all().some((t) => `${t.plural}.${t.group}` === crd)).toBe(true);
    expect(releaseSecrets(release, release).map((s) => [s.type, s.metadata?.labels?.status])).toEqual([["helm.sh/release.v1", "deployed"]]);

    const upgraded = await helm("upgrade", release, chartDir, "--namespace", release, "-f", valuesFile);
    expect(upgraded).toMatch(/REVISION: 2/);
    expect(JSON.parse(await helm("list", "--namespace", release, "-o", "json"))).toMatchObject([{ name: release, revision: "2", status: "deployed" }]);

    expect(await helm("uninstall", release, "--namespace", release)).toContain(`release "${release}" uninstalled`);
    for (const m of manifests) {
      const back = await find(m, release);
      // Namespaces marked helm.sh/resource-policy: keep stay, as helm says.
      const kept = m.metadata.annotations?.["helm.sh/resource-policy"] === "keep";
      expect(back === undefined, `${m.kind}/${m.metadata.name} ${kept ? "kept" : "deleted"}`).toBe(!kept);
    }
    expect(releaseSecrets(release, release)).toEqual([]);
    expect(JSON.parse(await helm("list", "--namespace", release, "-o", "json"))).toEqual([]);
  });
});
