import { VSphereFailureDomain } from "@lockstep/contracts";
import { describe, expect, it } from "vitest";
import { applyMergePatch, type JsonObject } from "./merge-patch.js";
import { parseStream, type Stream } from "./stream.js";
import { INFRA_ID, VSPHERE_WORKSPACE, vsphereProviderSpec } from "./testdata/provider-specs.js";
import { STREAM_JSON, STREAM_RELEASE, streamDocument } from "./testdata/stream.js";
import { cleanPath, derivedTemplateName, patchVSphere, vsphereTemplateCandidates, type VSphereEnv } from "./vsphere.js";

function parse(doc: unknown): Stream {
  const r = parseStream(JSON.stringify(doc));
  if (!r.ok) throw new Error(r.error.message);
  return r.stream;
}
const stream = parse(JSON.parse(STREAM_JSON));
const INSTALLER_TEMPLATE = `${INFRA_ID}-rhcos-generated-region-generated-zone`;
const FD = VSphereFailureDomain.fromPartial({
  name: "generated-failure-domain",
  server: "vcenter.example.com",
  datacenter: "dc1",
  datastore: "/dc1/datastore/vsanDatastore",
  computeCluster: "/dc1/host/cluster1",
  resourcePool: "/dc1/host/cluster1/Resources",
  folder: `/dc1/vm/${INFRA_ID}`,
});
const env = (templates: Record<string, string> | undefined, over: Partial<VSphereEnv> = {}): VSphereEnv => ({
  platformSpecPresent: true,
  failureDomains: [FD],
  infrastructureName: INFRA_ID,
  ...(templates === undefined ? {} : { templates }),
  ...over,
});
const spec = (template?: string, ws = VSPHERE_WORKSPACE) => vsphereProviderSpec(template, ws) as unknown as JsonObject;
const OVA = "https://rhcos.mirror.example/rhcos-9.6.20260210-0-vmware.x86_64.ova";

describe("cleanPath", () => {
  it.each([
    ["/dc1/host/cluster1//Resources", "/dc1/host/cluster1/Resources"],
    ["/dc1/host/cluster1/Resources/", "/dc1/host/cluster1/Resources"],
    ["/dc1/./host/../host/c", "/dc1/host/c"],
    ["", "."],
    ["a//b", "a/b"],
  ])("%s → %s", (a, b) => expect(cleanPath(a)).toBe(b));
});

describe("patchVSphere", () => {
  it("re-imports the template in place when its release is old; providerSpec unchanged", () => {
    const r = patchVSphere(spec(), stream, "", "x86_64", env({ [INSTALLER_TEMPLATE]: "418.94.202410090804-0" }));
    if (r.action !== "patch") throw new Error(JSON.stringify(r));
    expect(r.patch).toEqual({});
    expect(r.hotLoopValue).toBe(STREAM_RELEASE);
    expect(r.templateUpdate).toEqual({
      templateName: INSTALLER_TEMPLATE,
      targetRelease: STREAM_RELEASE,
      currentRelease: "418.94.202410090804-0",
      ovaLocation: OVA,
      ovaSha256: "0f0f0f0f1e1e1e1e",
    });
  });

  it("is up to date when the template already runs the stream release", () => {
    expect(patchVSphere(spec(), stream, "", "x86_64", env({ [INSTALLER_TEMPLATE]: STREAM_RELEASE }))).toMatchObject({ action: "upToDate" });
  });

  it("creates the derived template and repoints the MachineSet when its template is outside the folder", () => {
    const original = spec("some-template-elsewhere");
    const r = patchVSphere(original, stream, "", "x86_64", env({}));
    if (r.action !== "patch") throw new Error(JSON.stringify(r));
    const derived = `${INFRA_ID}-rhcos-generated-failure-domain`;
    expect(r.patch).toEqual({ template: derived });
    expect(applyMergePatch(original, r.patch)).toEqual(r.newProviderSpec);
    expect(r.templateUpdate).toMatchObject({ templateName: derived, currentRelease: "" });
  });

  it("repoints without importing when the derived template is already current", () => {
    const derived = derivedTemplateName(INFRA_ID, FD.name);
    const r = patchVSphere(spec("gone"), stream, "", "x86_64", env({ [derived]: STREAM_RELEASE }));
    expect(r).toMatchObject({ action: "patch", patch: { template: derived } });
    expect(r.action === "patch" && r.templateUpdate).toBeUndefined();
  });

  it("matches a failure domain without a resource pool through its compute cluster", () => {
    const fd = { ...FD, resourcePool: "" };
    expect(patchVSphere(spec(), stream, "", "x86_64", env({ [INSTALLER_TEMPLATE]: STREAM_RELEASE }, { failureDomains: [fd] }))).toMatchObject({ action: "upToDate" });
  });

  it("excludes clusters without spec.platformSpec.vsphere (no-op)", () => {
    expect(patchVSphere(spec(), stream, "", "x86_64", env({}, { platformSpecPresent: false }))).toMatchObject({ action: "excluded" });
  });

  it.each([
    { name: "other datastore", ws: { ...VSPHERE_WORKSPACE, datastore: "/dc1/datastore/other" } },
    { name: "other vCenter", ws: { ...VSPHERE_WORKSPACE, server: "vc2.example.com" } },
    { name: "other resource pool", ws: { ...VSPHERE_WORKSPACE, resourcePool: "/dc1/host/cluster2/Resources" } },
    { name: "vm group not in the failure domain", ws: { ...VSPHERE_WORKSPACE, vmGroup: "zone-a-vms" } },
  ])("skips an unmatched workspace: $name", ({ ws }) => {
    expect(patchVSphere(spec(undefined, ws), stream, "", "x86_64", env({}))).toMatchObject({
      action: "skip",
      reason: expect.stringMatching(/does not match any vCenter\/failure domain in the Infrastructure object/),
    });
  });

  const errors: { name: string; s: JsonObject; st?: Stream; arch?: "x86_64" | "aarch64"; e?: VSphereEnv; message: string }[] = [
    { name: "no vmware artifact", s: spec(), arch: "aarch64", message: "stream:rhcos-9.6: artifact 'vmware' not found" },
    { name: "missing architecture", s: spec(), st: parse({ stream: "rhcos-9.6", architectures: { aarch64: {} } }), message: "stream:rhcos-9.6 does not have architecture 'x86_64'" },
    { name: "workspace missing", s: (({ workspace: _w, ...r }) => r as JsonObject)(spec()), message: "providerSpec workspace must be an object" },
    { name: "workspace without server", s: spec(undefined, { ...VSPHERE_WORKSPACE, server: "" }), message: "providerSpec workspace.server is unset" },
    { name: "template not a string", s: { ...spec(), template: 1 } as JsonObject, message: "providerSpec template must be a string" },
    { name: "templates not looked up", s: spec(), e: env(undefined), message: `vSphere templates in folder /dc1/vm/${INFRA_ID} were not looked up` },
    {
      name: "vmware artifact without an ova",
      s: spec(),
      st: (() => {
        const d = streamDocument();
        (d.architectures.x86_64.artifacts.vmware as { formats?: unknown }).formats = {};
        return parse(d);
      })(),
      message: "stream:rhcos-9.6: artifact 'vmware' has no ova disk",
    },
  ];
  it.each(errors)("error: $name", ({ s, st, arch, e, message }) => {
    expect(patchVSphere(s, st ?? stream, "", arch ?? "x86_64", e ?? env({ [INSTALLER_TEMPLATE]: "old" }))).toEqual({ action: "error", message });
  });

  it("caps derived template names at 80 characters", () => {
    expect(derivedTemplateName("x".repeat(70), "failure-domain-1")).toHaveLength(80);
  });

  it("lists the template candidates to look up", () => {
    expect(vsphereTemplateCandidates(spec(), env(undefined))).toEqual({
      folder: `/dc1/vm/${INFRA_ID}`,
      names: [INSTALLER_TEMPLATE, `${INFRA_ID}-rhcos-generated-failure-domain`],
    });
  });
});
