import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { computeDecision } from "./engine.js";
import { canonicalKernelType } from "./diff.js";
import { resolvePolicies } from "./merge.js";
import type { NdpAction } from "./types.js";
import { SPEC_DEFAULTS_OBJECT, SPEC_DEFAULT_FILES, adminPolicy, mc, type McSpec } from "./__fixtures__/mc.js";

const KERNEL_TYPES = ["", "default", "realtime", "64k-pages"];

// Paths mostly under rules (defaults and the admin rules below), so the reboot cannot come from them by accident.
const pathArb = fc.oneof(
  fc.constantFrom(...SPEC_DEFAULT_FILES.map((f) => f.path)),
  fc.constantFrom("/etc/containers/registries.d/a.yaml", "/etc/nmstate/openshift/x.yml", "/etc/app/a", "/etc/app/b/c", "/etc/motd"),
  fc.stringMatching(/^\/etc\/[a-z]{1,6}(\/[a-z]{1,6})?$/),
);
const filesArb = fc.uniqueArray(fc.record({ path: pathArb, contents: fc.string({ maxLength: 30 }), mode: fc.constantFrom(420, 384, 493) }), {
  selector: (f) => f.path,
  maxLength: 6,
});
const unitsArb = fc.uniqueArray(
  fc.record({ name: fc.constantFrom("iri-registry.service", "app.service", "my.service", "x.timer"), contents: fc.string({ maxLength: 10 }), enabled: fc.boolean() }),
  { selector: (u) => u.name, maxLength: 3 },
);
const specArb: fc.Arbitrary<McSpec> = fc.record({
  files: filesArb,
  units: unitsArb,
  sshKeys: fc.array(fc.constantFrom("ssh-ed25519 A", "ssh-ed25519 B", "ssh-rsa C"), { maxLength: 2 }),
  osImageURL: fc.constantFrom("quay.io/os@sha256:1", "quay.io/os@sha256:2", "quay.io/os@sha256:3"),
  kernelArguments: fc.array(fc.constantFrom("nosmt", "mitigations=off", "hugepages=2"), { maxLength: 3 }),
  fips: fc.boolean(),
  kernelType: fc.constantFrom(...KERNEL_TYPES),
  extensions: fc.array(fc.constantFrom("usbguard", "kerberos", "wasm"), { maxLength: 2 }),
});

type RebootField = "osImageURL" | "kernelArguments" | "fips" | "kernelType" | "extensions";
const FIELDS: RebootField[] = ["osImageURL", "kernelArguments", "fips", "kernelType", "extensions"];

/** Changes one reboot-forcing field for certain (each field at most once, so changes cannot cancel). */
function mutate(s: McSpec, field: RebootField): McSpec {
  switch (field) {
    case "osImageURL":
      return { ...s, osImageURL: `${s.osImageURL}-new` };
    case "kernelArguments":
      return { ...s, kernelArguments: [...(s.kernelArguments ?? []), "rd.changed"] };
    case "fips":
      return { ...s, fips: !s.fips };
    case "kernelType":
      return { ...s, kernelType: canonicalKernelType(s.kernelType ?? "") === "realtime" ? "64k-pages" : "realtime" };
    case "extensions":
      return { ...s, extensions: [...(s.extensions ?? []), "changed-ext"] };
  }
}
const mutationsArb = fc.uniqueArray(fc.constantFrom(...FIELDS), { minLength: 1, maxLength: FIELDS.length });

const actionArb: fc.Arbitrary<NdpAction[]> = fc.constantFrom<NdpAction[]>(
  [{ type: "None" }],
  [{ type: "Drain" }, { type: "Reload", reload: { serviceName: "app.service" } }],
  [{ type: "DaemonReload" }],
  [{ type: "Restart", restart: { serviceName: "app.service" } }],
);
const rulesArb = fc
  .record({ app: actionArb, etc: actionArb, unit: actionArb, ssh: actionArb })
  .map(({ app, etc, unit, ssh }) =>
    resolvePolicies([
      SPEC_DEFAULTS_OBJECT,
      adminPolicy("admin", {
        files: [
          { path: "/etc/app", actions: app },
          { path: "/etc", actions: etc },
        ],
        units: [{ name: "app.service", actions: unit }, { name: "my.service", actions: unit }],
        sshkey: { actions: ssh },
      }),
    ]).rules,
  );

describe("property: reboot-forcing fields", () => {
  it("any change of OS image, kernel arguments, FIPS, kernel type or extensions yields exactly [Reboot], whatever else changed", () => {
    fc.assert(
      fc.property(specArb, specArb, mutationsArb, rulesArb, (oldSpec, otherSpec, mutations, rules) => {
        // New config: anything else may differ (other files, units, keys), plus at least one forced field change.
        const base: McSpec = { ...otherSpec, osImageURL: oldSpec.osImageURL, kernelArguments: oldSpec.kernelArguments, fips: oldSpec.fips, kernelType: oldSpec.kernelType, extensions: oldSpec.extensions };
        const newSpec = mutations.reduce(mutate, base);
        const d = computeDecision(mc(oldSpec), mc(newSpec), rules);
        expect(d.actions).toEqual([{ type: "Reboot" }]);
        expect(d.reboot).toBe(true);
        expect(d.drain).toBe(true);
        expect(d.trace.some((t) => t.kind === "field")).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it("without such a change and with every changed item under a non-Reboot rule, the result never reboots", () => {
    fc.assert(
      fc.property(specArb, specArb, rulesArb, (oldSpec, otherSpec, rules) => {
        const newSpec: McSpec = { ...otherSpec, osImageURL: oldSpec.osImageURL, kernelArguments: oldSpec.kernelArguments, fips: oldSpec.fips, kernelType: oldSpec.kernelType, extensions: oldSpec.extensions };
        // Every path is under "/etc" or a default rule except /usr/local/bin/…, which has its own default; units
        // other than x.timer have rules.
        fc.pre(!(newSpec.units ?? []).some((u) => u.name === "x.timer") && !(oldSpec.units ?? []).some((u) => u.name === "x.timer"));
        const d = computeDecision(mc(oldSpec), mc(newSpec), rules);
        expect(d.reboot).toBe(false);
        expect(d.actions.length).toBeGreaterThan(0);
      }),
      { numRuns: 300 },
    );
  });
});
