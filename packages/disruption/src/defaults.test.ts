import { describe, expect, it } from "vitest";
import { loadDefaultPolicies, loadPolicyManifests, parsePolicyManifests } from "./defaults.js";
import { SPEC_DEFAULT_FILES, SPEC_DEFAULT_SSHKEY, SPEC_DEFAULT_UNITS } from "./__fixtures__/mc.js";

// Reads the shipped manifests: this is the test that the data in packages/disruption/defaults/ is §2.4.
describe("shipped default policies", () => {
  it("are exactly the main list of mco-behaviors.md §2.4, in order", async () => {
    const policies = await loadDefaultPolicies();
    expect(policies).toHaveLength(1);
    const p = policies[0]!;
    expect(p.metadata).toEqual({ name: "lockstep-defaults", labels: { "lockstep.io/default": "true" } });
    expect(p.spec.files).toEqual(SPEC_DEFAULT_FILES.map((f) => ({ path: f.path, actions: f.actions })));
    expect(p.spec.units).toEqual(SPEC_DEFAULT_UNITS);
    expect(p.spec.sshkey).toEqual(SPEC_DEFAULT_SSHKEY);
  });

  it("loadPolicyManifests returns the raw objects for installers", async () => {
    const raw = await loadPolicyManifests();
    expect(raw).toHaveLength(1);
    expect(raw[0]).toMatchObject({ apiVersion: "lockstep.io/v1alpha1", kind: "NodeDisruptionPolicy" });
  });
});

describe("parsePolicyManifests", () => {
  it("splits multi-document YAML and skips empty documents", () => {
    expect(parsePolicyManifests("a: 1\n---\n---\nb: 2\n")).toEqual([{ a: 1 }, { b: 2 }]);
  });
  it("names the source in YAML errors", () => {
    expect(() => parsePolicyManifests("a: [1,\n", "x.yaml")).toThrow(/^x\.yaml: invalid YAML/);
  });
});
