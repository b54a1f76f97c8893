import { describe, expect, it } from "vitest";
import {
  awsLookupsNeeded,
  MARKETPLACE_AMI_OWNER,
  marketplaceProductId,
  patchAws,
  RHCOS_AMI_OWNER,
  type AwsImageCatalog,
  type Ec2Image,
} from "./aws.js";
import { applyMergePatch, type JsonObject } from "./merge-patch.js";
import { parseStream, type Stream } from "./stream.js";
import { awsProviderSpec } from "./testdata/provider-specs.js";
import { STREAM_JSON } from "./testdata/stream.js";

const stream: Stream = (() => {
  const r = parseStream(STREAM_JSON);
  if (!r.ok) throw new Error(r.error.message);
  return r.stream;
})();

const OLD = "ami-0c5d3e3b4f3d1c7e2";
const TARGET_US = "ami-0e0a1b2c3d4e5f601";
const OCP_PRODUCT = "59ead7de-2540-4653-a8b0-fa7926d5c845";
const spec = (ami = OLD) => awsProviderSpec(ami) as unknown as JsonObject;

const standard = (id: string): Ec2Image => ({ imageId: id, ownerId: RHCOS_AMI_OWNER, name: `rhcos-418.94.202410090804-0-x86_64`, description: "OpenShift 4.18", creationDate: "2024-10-09T08:04:00Z" });
const mkt = (id: string, release: string, created: string, product = OCP_PRODUCT): Ec2Image => ({
  imageId: id,
  ownerId: MARKETPLACE_AMI_OWNER,
  name: `RHEL-9.4-RHCOS-${release.split(".").slice(0, 2).join(".")}_HVM_GA-x86_64-0-${product}`,
  description: `Red Hat Enterprise Linux CoreOS ${release}`,
  creationDate: created,
});
const catalog = (images: Record<string, Ec2Image | null>, marketplace: Record<string, Ec2Image[]> = {}): AwsImageCatalog => ({
  images: Object.fromEntries(Object.entries(images).map(([k, v]) => [k, { ok: true as const, value: v }])),
  marketplace: Object.fromEntries(Object.entries(marketplace).map(([k, v]) => [k, { ok: true as const, value: v }])),
});

describe("patchAws: standard RHCOS AMIs", () => {
  it("patches to the stream AMI of the MachineSet's region, replacing the whole ami struct", () => {
    const original = spec();
    const r = patchAws(original, stream, "us-east-1", "x86_64", { catalog: catalog({ [OLD]: standard(OLD) }) });
    if (r.action !== "patch") throw new Error(JSON.stringify(r));
    expect(r.patch).toEqual({ ami: { id: TARGET_US } });
    expect(applyMergePatch(original, r.patch)).toEqual(r.newProviderSpec);
    expect(r).toMatchObject({ currentImage: OLD, targetImage: TARGET_US });
    expect(r.rhcosVersion).toBeUndefined();
  });

  it("uses placement.region over the cluster region", () => {
    const s = spec();
    (s["placement"] as JsonObject)["region"] = "eu-west-1";
    const r = patchAws(s, stream, "us-east-1", "x86_64", { catalog: catalog({ [OLD]: standard(OLD) }) });
    expect(r).toMatchObject({ action: "patch", targetImage: "ami-0e0a1b2c3d4e5f602" });
  });

  it("drops arn/filters that would conflict with id", () => {
    const s = spec();
    s["ami"] = { id: OLD, filters: [{ name: "name", values: ["rhcos*"] }] };
    const r = patchAws(s, stream, "", "x86_64", { catalog: catalog({ [OLD]: standard(OLD) }) });
    expect(r).toMatchObject({ action: "patch", patch: { ami: { id: TARGET_US, filters: null } } });
  });

  it("is up to date on the target AMI", () => {
    const r = patchAws(spec(TARGET_US), stream, "", "x86_64", { catalog: catalog({ [TARGET_US]: standard(TARGET_US) }) });
    expect(r).toEqual({ action: "upToDate", currentImage: TARGET_US, targetImage: TARGET_US });
  });

  it("picks the arch's AMI", () => {
    const r = patchAws(spec(), stream, "", "aarch64", { catalog: catalog({ [OLD]: standard(OLD) }) });
    expect(r).toMatchObject({ action: "patch", targetImage: "ami-0a0a1b2c3d4e5f603" });
  });
});

describe("patchAws: skip rules", () => {
  const cases: { name: string; spec: JsonObject; arch?: "x86_64" | "aarch64"; cat: AwsImageCatalog; reason: RegExp }[] = [
    { name: "ami.id unset (filters)", spec: { ...spec(), ami: { filters: [{ name: "name", values: ["x"] }] } }, cat: catalog({}), reason: /ami.id is unset/ },
    { name: "ami missing", spec: (({ ami: _a, ...rest }) => rest)(spec()), cat: catalog({}), reason: /ami.id is unset/ },
    { name: "region missing from the stream", spec: { ...spec(), placement: { region: "ap-south-2" } }, cat: catalog({ [OLD]: standard(OLD) }), reason: /no x86_64 AMI for region ap-south-2/ },
    { name: "arch without that region", spec: { ...spec(), placement: { region: "eu-west-1" } }, arch: "aarch64", cat: catalog({ [OLD]: standard(OLD) }), reason: /no aarch64 AMI for region eu-west-1/ },
    { name: "custom AMI of another owner", spec: spec(), cat: catalog({ [OLD]: { ...standard(OLD), ownerId: "123456789012" } }), reason: /not a standard RHCOS or marketplace image/ },
    { name: "marketplace owner without product id", spec: spec(), cat: catalog({ [OLD]: { ...standard(OLD), ownerId: MARKETPLACE_AMI_OWNER, name: "some-image" } }), reason: /not a standard RHCOS or marketplace image/ },
    { name: "AMI not found", spec: spec(), cat: catalog({ [OLD]: null }), reason: /was not found in us-east-1/ },
    {
      name: "marketplace with only newer tokens",
      spec: spec(),
      cat: catalog({ [OLD]: mkt(OLD, "9.4.20250101-0", "2025-01-01T00:00:00Z") }, { [OCP_PRODUCT]: [mkt("ami-new", "9.8.20270101-0", "2027-01-01T00:00:00Z")] }),
      reason: /no marketplace image for product .* at or below RHCOS 9.6/,
    },
    {
      name: "marketplace with only pre-4.19 images",
      spec: spec(),
      cat: catalog({ [OLD]: mkt(OLD, "9.4.20250101-0", "2025-01-01T00:00:00Z") }, { [OCP_PRODUCT]: [mkt("ami-legacy", "418.94.202410090804-0", "2024-10-09T00:00:00Z")] }),
      reason: /only has pre-4.19 RHCOS images/,
    },
  ];
  it.each(cases)("$name", ({ spec: s, arch, cat, reason }) => {
    expect(patchAws(s, stream, "us-east-1", arch ?? "x86_64", { catalog: cat })).toMatchObject({ action: "skip", reason: expect.stringMatching(reason) });
  });
});

describe("patchAws: marketplace resolution", () => {
  const current = mkt(OLD, "9.4.20250101-0", "2025-01-01T00:00:00Z");
  it("chooses the highest token at or below the stream's, newest on ties", () => {
    const r = patchAws(spec(), stream, "", "x86_64", {
      catalog: catalog(
        { [OLD]: current },
        {
          [OCP_PRODUCT]: [
            mkt("ami-97", "9.7.20260501-0", "2026-05-01T00:00:00Z"),
            mkt("ami-96a", "9.6.20260110-0", "2026-01-10T00:00:00Z"),
            mkt("ami-96b", "9.6.20260210-0", "2026-02-10T00:00:00Z"),
            mkt("ami-95", "9.5.20251001-0", "2025-10-01T00:00:00Z"),
            mkt("ami-418", "418.94.202410090804-0", "2024-10-09T00:00:00Z"),
          ],
        },
      ),
    });
    expect(r).toMatchObject({ action: "patch", targetImage: "ami-96b", rhcosVersion: "9.6.20260210-0", patch: { ami: { id: "ami-96b" } } });
  });
  it("accepts an older token while the newest has not replicated", () => {
    const r = patchAws(spec(), stream, "", "x86_64", {
      catalog: catalog({ [OLD]: current }, { [OCP_PRODUCT]: [mkt("ami-95", "9.5.20251001-0", "2025-10-01T00:00:00Z")] }),
    });
    expect(r).toMatchObject({ action: "patch", targetImage: "ami-95", rhcosVersion: "9.5.20251001-0" });
  });
  it("reports the marketplace release even when up to date", () => {
    const r = patchAws(spec("ami-96"), stream, "", "x86_64", {
      catalog: catalog({ "ami-96": mkt("ami-96", "9.6.20260210-0", "2026-02-10T00:00:00Z") }, { [OCP_PRODUCT]: [mkt("ami-96", "9.6.20260210-0", "2026-02-10T00:00:00Z")] }),
    });
    expect(r).toEqual({ action: "upToDate", currentImage: "ami-96", targetImage: "ami-96", rhcosVersion: "9.6.20260210-0" });
  });
  it("treats the ROSA product like any marketplace product", () => {
    const rosa = "34850061-abaf-402d-92df-94325c9e947f";
    const r = patchAws(spec(), stream, "", "x86_64", {
      catalog: catalog({ [OLD]: mkt(OLD, "9.4.20250101-0", "2025-01-01T00:00:00Z", rosa) }, { [rosa]: [mkt("ami-rosa", "9.6.20260210-0", "2026-02-10T00:00:00Z", rosa)] }),
    });
    expect(r).toMatchObject({ action: "patch", targetImage: "ami-rosa" });
  });
});

describe("patchAws: errors", () => {
  it.each([
    { name: "describe failed", env: { catalog: { images: { [OLD]: { ok: false as const, error: "UnauthorizedOperation" } }, marketplace: {} } }, msg: `failed to describe AMI ${OLD} in us-east-1: UnauthorizedOperation` },
    { name: "not looked up", env: { catalog: catalog({}) }, msg: `EC2 image ${OLD} was not looked up` },
    {
      name: "marketplace listing failed",
      env: { catalog: { images: catalog({ [OLD]: mkt(OLD, "9.4.20250101-0", "2025-01-01T00:00:00Z") }).images, marketplace: { [OCP_PRODUCT]: { ok: false as const, error: "throttled" } } } },
      msg: `failed to list marketplace images for product ${OCP_PRODUCT} in us-east-1: throttled`,
    },
  ])("$name", ({ env, msg }) => {
    expect(patchAws(spec(), stream, "", "x86_64", env)).toEqual({ action: "error", message: msg });
  });
  it("a missing architecture is an error (Lockstep rule)", () => {
    expect(patchAws(spec(), stream, "", "ppc64le", { catalog: catalog({ [OLD]: standard(OLD) }) })).toEqual({
      action: "error",
      message: "stream:rhcos-9.6 does not have architecture 'ppc64le'",
    });
  });
  it.each([
    { ami: "ami-1", msg: "providerSpec ami must be an object" },
    { ami: { id: 7 }, msg: "providerSpec ami.id must be a string" },
  ])("malformed ami $ami", ({ ami, msg }) => {
    expect(patchAws({ ...spec(), ami } as JsonObject, stream, "", "x86_64")).toEqual({ action: "error", message: msg });
  });
  it("no region anywhere", () => {
    const s = spec();
    delete s["placement"];
    expect(patchAws(s, stream, "", "x86_64")).toMatchObject({ action: "error", message: /placement.region is unset/ });
  });
});

describe("patchAws without EC2 access (allow-list fallback)", () => {
  it("patches an allow-listed AMI", () => {
    expect(patchAws(spec(), stream, "", "x86_64", { allowedAmis: new Set([OLD]) })).toMatchObject({ action: "patch", targetImage: TARGET_US });
  });
  it("skips what it cannot prove", () => {
    expect(patchAws(spec(), stream, "", "x86_64", {})).toMatchObject({ action: "skip", reason: /cannot be verified/ });
  });
  it("recognises the stream AMI as up to date", () => {
    expect(patchAws(spec(TARGET_US), stream, "", "x86_64")).toMatchObject({ action: "upToDate" });
  });
});

describe("helpers", () => {
  it("marketplaceProductId", () => {
    expect(marketplaceProductId(mkt("a", "9.6.20260210-0", ""))).toBe(OCP_PRODUCT);
    expect(marketplaceProductId(standard("a"))).toBeUndefined();
  });
  it("awsLookupsNeeded lists each AMI once with its region", () => {
    const b = spec();
    (b["placement"] as JsonObject)["region"] = "eu-west-1";
    expect(awsLookupsNeeded([spec(), spec(), b, { ...spec(), ami: {} }], "us-east-1")).toEqual([{ amiId: OLD, region: "us-east-1" }]);
  });
});
