import { MachineConfigState, type StateKindName, stateKey } from "@lockstep/contracts";
import { describe, expect, it } from "vitest";
import { evaluateSkew } from "@lockstep/skew-rules";
import { bootImages, clusterVersion, infrastructure, machineSet, node, pool, policy, settings } from "@lockstep/skew-rules/fixtures";
import { bootImagesOf, machineSetOf, SKEW_PROJECTIONS, skewInputs, type SkewStateOf, type StateReader } from "./view.js";

/** A StateReader over plain snapshots, keyed like the state plane, projected as the StateCache does. */
function reader(entries: Array<[StateKindName, unknown, string?]>): StateReader {
  const byKey = new Map<string, { kind: StateKindName; value: unknown }>();
  const projections = SKEW_PROJECTIONS as Partial<Record<StateKindName, (v: never) => unknown>>;
  for (const [kind, value, namespace] of entries) {
    byKey.set(stateKey(kind, (value as { name: string }).name, namespace), { kind, value: projections[kind]?.(value as never) ?? value });
  }
  return {
    get: <K extends StateKindName>(kind: K, name: string, namespace?: string) => byKey.get(stateKey(kind, name, namespace))?.value as SkewStateOf<K> | undefined,
    list: <K extends StateKindName>(kind: K) => [...byKey.values()].filter((e) => e.kind === kind).map((e) => e.value as SkewStateOf<K>),
  };
}

const view = { settings: settings(), bootImagesNamespace: "openshift-machine-config-operator", bootImagesName: "coreos-bootimages" };

describe("skewInputs", () => {
  it("reads the singletons by their well-known names and everything else by kind", () => {
    const state = reader([
      ["clusterVersion", clusterVersion("4.16.2")],
      ["infrastructure", infrastructure("AWS")],
      ["infrastructure", infrastructure("GCP", { name: "other" })],
      ["pool", pool("master")],
      ["pool", pool("worker")],
      ["node", node("m1", "master", "rendered-master-new")],
      ["machineConfig", MachineConfigState.fromPartial({ name: "rendered-master-new", releaseImageVersion: "4.16.2" })],
      ["bootImagePolicy", policy({ skewMode: "None" })],
      ["bootImages", bootImages({}), "openshift-machine-config-operator"],
      ["machineSet", machineSet("AWSMachineProviderConfig", {}), "openshift-machine-api"],
    ]);
    const inputs = skewInputs(state, view);
    expect(inputs.clusterVersion?.desired?.version).toBe("4.16.2");
    expect(inputs.infrastructure?.platform).toBe("AWS");
    expect(inputs.pools.map((p) => p.name).sort()).toEqual(["master", "worker"]);
    expect(inputs.machineConfigs.get("rendered-master-new")).toEqual({ name: "rendered-master-new", releaseImageVersion: "4.16.2" });
    expect(inputs.nodes).toEqual([{ name: "m1", labels: { "node-role.kubernetes.io/master": "" }, mco: { state: "Done", currentConfig: "rendered-master-new", desiredConfig: "rendered-master-new" } }]);
    expect(inputs.bootImagePolicy?.skewMode).toBe("None");
    expect(evaluateSkew(inputs).lag.controlPlaneRelease).toBe("4.16.2");
    expect(bootImagesOf(state, view)?.releaseVersion).toBe("4.22.1");
    expect(machineSetOf(state, "openshift-machine-api", "ms-a")?.providerSpecKind).toBe("AWSMachineProviderConfig");
    expect(machineSetOf(state, "default", "ms-a")).toBeUndefined();
  });

  it("gives an empty view for an empty state plane, which the rules still judge", () => {
    const e = evaluateSkew(skewInputs(reader([]), view));
    expect(e.currentVersion).toBe("");
    expect(e.completion.complete).toBe(false);
    // No ClusterVersion: the install version is 0.0.0, deliberately a violation (mco-behaviors.md §4.3).
    expect(e.upgradeable).toMatchObject({ status: "False", reason: "ClusterBootImageSkewError" });
  });
});
