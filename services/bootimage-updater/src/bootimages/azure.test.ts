import { describe, expect, it } from "vitest";
import { azureVariant, patchAzure } from "./azure.js";
import { applyMergePatch, type JsonObject } from "./merge-patch.js";
import { parseStream, type Stream } from "./stream.js";
import { AZURE_GALLERY_GEN2, azureProviderSpec, type AzureImage } from "./testdata/provider-specs.js";
import { STREAM_JSON, streamDocument } from "./testdata/stream.js";

function parse(doc: unknown): Stream {
  const r = parseStream(JSON.stringify(doc));
  if (!r.ok) throw new Error(r.error.message);
  return r.stream;
}
const stream = parse(JSON.parse(STREAM_JSON));
const spec = (image?: AzureImage, securityType?: string) => azureProviderSpec(image, securityType) as unknown as JsonObject;

const NOPLAN_GEN1 = { publisher: "azureopenshift", offer: "aro4", sku: "aro_96", version: "9.6.20260210", resourceID: "", type: "MarketplaceNoPlan" };
const NOPLAN_GEN2 = { publisher: "azureopenshift", offer: "aro4", sku: "96-v2", version: "9.6.20260210", resourceID: "", type: "MarketplaceNoPlan" };
const OCP_GEN2 = { publisher: "redhat", offer: "rh-ocp-worker", sku: "rh-ocp-worker", version: "9.6.2026021000", resourceID: "", type: "MarketplaceWithPlan" };
const OCP_GEN1 = { ...OCP_GEN2, sku: "rh-ocp-worker-gen1" };

describe("azureVariant", () => {
  it.each([
    [{ resourceID: "/x", publisher: "", offer: "" }, "no-purchase-plan"],
    [{ resourceID: "", publisher: "azureopenshift", offer: "aro4" }, "no-purchase-plan"],
    [{ resourceID: "", publisher: "redhat", offer: "rh-ocp-worker" }, "ocp"],
    [{ resourceID: "", publisher: "redhat", offer: "rh-opp-worker" }, "opp"],
    [{ resourceID: "", publisher: "redhat", offer: "rh-oke-worker" }, "oke"],
    [{ resourceID: "", publisher: "redhat-limited", offer: "rh-ocp-worker" }, "ocp-emea"],
    [{ resourceID: "", publisher: "redhat-limited", offer: "rh-oke-worker" }, "oke-emea"],
    [{ resourceID: "", publisher: "redhat", offer: "rhel-byos" }, undefined],
    [{ resourceID: "", publisher: "contoso", offer: "rh-ocp-worker" }, undefined],
  ])("%j → %s", (image, variant) => expect(azureVariant(image)).toBe(variant));
});

describe("patchAzure: patches", () => {
  const cases: { name: string; image: AzureImage; arch?: "x86_64" | "aarch64"; want: object }[] = [
    {
      name: "legacy gen2 gallery image migrates to the unpaid Gen2 marketplace image",
      image: AZURE_GALLERY_GEN2,
      want: { publisher: "azureopenshift", offer: "aro4", sku: "96-v2", version: "9.6.20260210", resourceID: "", type: "MarketplaceNoPlan" },
    },
    {
      name: "legacy gen1 gallery image migrates to Gen1",
      image: { ...AZURE_GALLERY_GEN2, resourceID: AZURE_GALLERY_GEN2.resourceID.replace("-gen2", "") },
      want: { sku: "aro_96", type: "MarketplaceNoPlan" },
    },
    { name: "old unpaid Gen2 (sku has v2)", image: { ...NOPLAN_GEN2, sku: "413-v2", version: "413.92.20230614" }, want: { sku: "96-v2" } },
    { name: "old unpaid Gen1", image: { ...NOPLAN_GEN1, sku: "aro_413", version: "413.92.20230614" }, want: { sku: "aro_96" } },
    { name: "old unpaid without type keeps the no-plan generation rule", image: { ...NOPLAN_GEN1, sku: "aro_413", type: "" }, want: { sku: "aro_96", type: "MarketplaceNoPlan" } },
    { name: "unpaid on aarch64 is Gen2", image: { ...NOPLAN_GEN1, sku: "aro_413" }, arch: "aarch64", want: { sku: "96-arm64-v2" } },
    { name: "paid OCP Gen2", image: { ...OCP_GEN2, version: "413.92.2023101700" }, want: { sku: "rh-ocp-worker", version: "9.6.2026021000", type: "MarketplaceWithPlan" } },
    { name: "paid OCP Gen1 (sku has gen1)", image: { ...OCP_GEN1, version: "413.92.2023101700" }, want: { sku: "rh-ocp-worker-gen1" } },
    { name: "EMEA", image: { ...OCP_GEN2, publisher: "redhat-limited", version: "1" }, want: { publisher: "redhat-limited", type: "MarketplaceWithPlan" } },
  ];
  it.each(cases)("$name", ({ image, arch, want }) => {
    const original = spec(image);
    const r = patchAzure(original, stream, "", arch ?? "x86_64");
    if (r.action !== "patch") throw new Error(JSON.stringify(r));
    expect(r.newProviderSpec["image"]).toMatchObject(want);
    expect(Object.keys(r.patch)).toEqual(["image"]);
    expect(applyMergePatch(original, r.patch)).toEqual(r.newProviderSpec);
  });

  it.each([
    ["unpaid Gen2", NOPLAN_GEN2],
    ["unpaid Gen1", NOPLAN_GEN1],
    ["paid Gen2", OCP_GEN2],
  ])("up to date: %s", (_n, image) => {
    expect(patchAzure(spec(image), stream, "", "x86_64")).toMatchObject({ action: "upToDate", currentImage: `${image.publisher}:${image.offer}:${image.sku}:${image.version}` });
  });
});

describe("patchAzure: exclusions, skips and errors", () => {
  it.each(["ppc64le", "s390x"] as const)("excludes %s", (arch) => {
    expect(patchAzure(spec(), stream, "", arch)).toMatchObject({ action: "excluded" });
  });
  it("excludes confidential / trusted-launch VMs", () => {
    expect(patchAzure(spec(AZURE_GALLERY_GEN2, "TrustedLaunch"), stream, "", "x86_64")).toEqual({
      action: "excluded",
      reason: "securityProfile.settings.securityType is TrustedLaunch",
    });
  });
  it("skips when the stream has no Azure marketplace block (OKD)", () => {
    const doc = streamDocument();
    delete (doc.architectures.x86_64 as { "rhel-coreos-extensions"?: unknown })["rhel-coreos-extensions"];
    expect(patchAzure(spec(), parse(doc), "", "x86_64")).toMatchObject({ action: "skip", reason: /no Azure marketplace images/ });
  });
  const errors: { name: string; s: JsonObject; arch?: "x86_64" | "aarch64"; message: string }[] = [
    { name: "unknown publisher", s: spec({ ...OCP_GEN2, publisher: "contoso" }), message: "could not determine azure marketplace variant, cannot update boot images" },
    { name: "variant absent from the stream", s: spec({ ...OCP_GEN2, offer: "rh-opp-worker" }), message: "no Azure marketplace images available for variant opp" },
    { name: "generation absent from the stream", s: spec({ ...OCP_GEN1, publisher: "redhat-limited" }), message: "no Gen1 Azure marketplace image available for architecture x86_64" },
    { name: "image missing", s: (({ image: _i, ...rest }) => rest as JsonObject)(spec()), message: "providerSpec image must be an object" },
    { name: "image field of the wrong type", s: { ...spec(), image: { ...NOPLAN_GEN1, sku: 4 } } as JsonObject, message: "providerSpec image.sku must be a string" },
  ];
  it.each(errors)("error: $name", ({ s, arch, message }) => {
    expect(patchAzure(s, stream, "", arch ?? "x86_64")).toEqual({ action: "error", message });
  });
  it("a missing architecture is an error with upstream's message", () => {
    const doc = streamDocument();
    delete (doc.architectures as { aarch64?: unknown }).aarch64;
    expect(patchAzure(spec(), parse(doc), "", "aarch64")).toEqual({ action: "error", message: "stream:rhcos-9.6 does not have architecture 'aarch64'" });
  });
});
