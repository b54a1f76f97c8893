import { describe, expect, it } from "vitest";
import { patchGcp } from "./gcp.js";
import { applyMergePatch, type JsonObject } from "./merge-patch.js";
import { parseStream, type Stream } from "./stream.js";
import { gcpProviderSpec } from "./testdata/provider-specs.js";
import { STREAM_JSON, streamDocument } from "./testdata/stream.js";

function stream(doc: unknown = JSON.parse(STREAM_JSON)): Stream {
  const r = parseStream(JSON.stringify(doc));
  if (!r.ok) throw new Error(r.error.message);
  return r.stream;
}
const TARGET = "projects/rhcos-cloud/global/images/rhcos-9-6-20260210-0-gcp-x86-64";
const spec = (image?: string) => gcpProviderSpec(image) as unknown as JsonObject;

describe("patchGcp", () => {
  it("patches an installer RHCOS image to the stream image, boot disk only", () => {
    const original = spec();
    const r = patchGcp(original, stream(), "us-central1", "x86_64");
    expect(r.action).toBe("patch");
    if (r.action !== "patch") return;
    expect(r.targetImage).toBe(TARGET);
    expect(r.currentImage).toBe("projects/rhcos-cloud/global/images/rhcos-418-94-202410090804-0-gcp-x86-64");
    const disks = r.newProviderSpec["disks"] as JsonObject[];
    expect(disks[0]?.["image"]).toBe(TARGET);
    // The merge patch touches only `disks`, and applying it gives the new providerSpec.
    expect(Object.keys(r.patch)).toEqual(["disks"]);
    expect(applyMergePatch(original, r.patch)).toEqual(r.newProviderSpec);
    // The input is not mutated.
    expect((original["disks"] as JsonObject[])[0]?.["image"]).not.toBe(TARGET);
  });

  it("is up to date when the boot disk already has the target", () => {
    expect(patchGcp(spec(TARGET), stream(), "", "x86_64")).toEqual({ action: "upToDate", currentImage: TARGET, targetImage: TARGET });
  });

  it("leaves non-boot disks alone and patches every stale boot disk", () => {
    const s = spec();
    (s["disks"] as JsonObject[]).push({ boot: false, image: "my-data-image", sizeGb: 50 });
    (s["disks"] as JsonObject[]).push({ boot: true, image: "projects/rhcos-cloud/global/images/rhcos-413-92-x", sizeGb: 50 });
    const r = patchGcp(s, stream(), "", "x86_64");
    if (r.action !== "patch") throw new Error(r.action);
    const disks = r.newProviderSpec["disks"] as JsonObject[];
    expect(disks.map((d) => d["image"])).toEqual([TARGET, "my-data-image", TARGET]);
  });

  const skips = [
    { name: "custom image from another project", image: "projects/my-project/global/images/golden-rhcos", reason: /custom image/ },
    { name: "installer-uploaded per-cluster image", image: "prod-east-x7k2p-rhcos-image", reason: /custom image/ },
  ];
  it.each(skips)("skips: $name", ({ image, reason }) => {
    const r = patchGcp(spec(image), stream(), "", "x86_64");
    expect(r).toMatchObject({ action: "skip", reason: expect.stringMatching(reason) });
  });

  it("skips when the architecture has no GCP image (Lockstep rule)", () => {
    expect(patchGcp(spec(), stream(), "", "aarch64")).toEqual({
      action: "skip",
      reason: "stream rhcos-9.6 has no GCP image for architecture aarch64",
    });
  });

  it("errors when the stream lacks the architecture", () => {
    expect(patchGcp(spec(), stream(), "", "ppc64le")).toEqual({
      action: "error",
      message: "stream:rhcos-9.6 does not have architecture 'ppc64le'",
    });
  });

  it("skips a providerSpec without a boot disk", () => {
    const s = spec();
    s["disks"] = [{ boot: false, image: TARGET }];
    expect(patchGcp(s, stream(), "", "x86_64")).toMatchObject({ action: "skip", reason: "providerSpec has no boot disk" });
  });

  it.each([
    { name: "disks missing", mutate: (s: JsonObject) => delete s["disks"], message: "providerSpec disks must be a list" },
    { name: "disk not an object", mutate: (s: JsonObject) => (s["disks"] = ["x"]), message: "providerSpec disks[0] must be an object" },
    { name: "image not a string", mutate: (s: JsonObject) => (s["disks"] = [{ boot: true, image: 3 }]), message: "providerSpec disks[0].image must be a string" },
  ])("errors on a malformed providerSpec: $name", ({ mutate, message }) => {
    const s = spec();
    mutate(s);
    expect(patchGcp(s, stream(), "", "x86_64")).toEqual({ action: "error", message });
  });

  it("uses the stream's project and name", () => {
    const doc = streamDocument();
    doc.architectures.x86_64.images.gcp = { ...doc.architectures.x86_64.images.gcp, project: "rhcos-cloud", name: "rhcos-9-8-x" };
    const r = patchGcp(spec(), stream(doc), "", "x86_64");
    expect(r).toMatchObject({ action: "patch", targetImage: "projects/rhcos-cloud/global/images/rhcos-9-8-x" });
  });
});
