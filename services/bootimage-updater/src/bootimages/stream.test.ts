import { describe, expect, it } from "vitest";
import { missingArchitectureMessage, parseStream, streamArchitecture, type Stream } from "./stream.js";
import { STREAM_JSON, STREAM_RELEASE, streamDocument } from "./testdata/stream.js";

function parsed(): Stream {
  const r = parseStream(STREAM_JSON);
  if (!r.ok) throw new Error(r.error.message);
  return r.stream;
}

describe("parseStream: a payload-shaped document", () => {
  const s = parsed();
  it("reads the stream name and architectures", () => {
    expect(s.name).toBe("rhcos-9.6");
    expect(Object.keys(s.architectures).sort()).toEqual(["aarch64", "s390x", "x86_64"]);
  });
  it("reads AWS regions, GCP image and artifact releases", () => {
    const x = s.architectures["x86_64"];
    expect(x?.awsRegions?.["eu-west-1"]).toEqual({ image: "ami-0e0a1b2c3d4e5f602", release: STREAM_RELEASE });
    expect(x?.gcp).toEqual({ project: "rhcos-cloud", name: "rhcos-9-6-20260210-0-gcp-x86-64", release: STREAM_RELEASE, family: "rhcos-9-6" });
    expect(x?.awsRelease).toBe(STREAM_RELEASE);
    expect(x?.vmware).toEqual({
      release: STREAM_RELEASE,
      ova: { location: "https://rhcos.mirror.example/rhcos-9.6.20260210-0-vmware.x86_64.ova", sha256: "0f0f0f0f1e1e1e1e" },
    });
  });
  it("reads Azure marketplace variants and generations", () => {
    const az = s.architectures["x86_64"]?.azureMarketplace;
    expect(Object.keys(az ?? {}).sort()).toEqual(["no-purchase-plan", "ocp", "ocp-emea"]);
    expect(az?.["ocp-emea"]?.hyperVGen1).toBeUndefined();
    expect(az?.["ocp"]?.hyperVGen2).toEqual({ publisher: "redhat", offer: "rh-ocp-worker", sku: "rh-ocp-worker", version: "9.6.2026021000" });
  });
  it("leaves platform blocks absent when the stream has none", () => {
    const a = s.architectures["aarch64"];
    expect(a?.gcp).toBeUndefined();
    expect(a?.vmware).toBeUndefined();
    expect(s.architectures["s390x"]?.awsRegions).toBeUndefined();
  });
});

describe("parseStream: malformed documents are typed errors naming the problem", () => {
  const mutate = (f: (d: ReturnType<typeof streamDocument>) => unknown) => {
    const d = streamDocument();
    const out = f(d);
    return JSON.stringify(out === undefined ? d : out);
  };
  const cases: { name: string; json: string; code: string; path: string }[] = [
    { name: "empty", json: "  ", code: "empty", path: "$" },
    { name: "truncated JSON", json: STREAM_JSON.slice(0, 40), code: "invalid-json", path: "$" },
    { name: "not an object", json: "[]", code: "wrong-type", path: "$" },
    { name: "missing stream name", json: mutate((d) => ({ architectures: d.architectures })), code: "missing-field", path: "$.stream" },
    { name: "missing architectures", json: mutate((d) => ({ stream: d.stream })), code: "missing-field", path: "$.architectures" },
    { name: "architectures not an object", json: mutate((d) => ({ stream: d.stream, architectures: [] })), code: "wrong-type", path: "$.architectures" },
    {
      name: "region without image",
      json: mutate((d) => {
        (d.architectures.x86_64.images.aws.regions["us-east-1"] as { image?: string }).image = undefined;
      }),
      code: "missing-field",
      path: "$.architectures.x86_64.images.aws.regions.us-east-1.image",
    },
    {
      name: "region image empty",
      json: mutate((d) => {
        d.architectures.x86_64.images.aws.regions["eu-west-1"].image = "";
      }),
      code: "missing-field",
      path: "$.architectures.x86_64.images.aws.regions.eu-west-1.image",
    },
    {
      name: "gcp name of the wrong type",
      json: mutate((d) => {
        (d.architectures.x86_64.images.gcp as { name: unknown }).name = 5;
      }),
      code: "wrong-type",
      path: "$.architectures.x86_64.images.gcp.name",
    },
    {
      name: "azure image without sku",
      json: mutate((d) => {
        (d.architectures.x86_64["rhel-coreos-extensions"].marketplace.azure.ocp.hyperVGen2 as { sku?: string }).sku = undefined;
      }),
      code: "missing-field",
      path: "$.architectures.x86_64.rhel-coreos-extensions.marketplace.azure.ocp.hyperVGen2.sku",
    },
    {
      name: "vmware without release",
      json: mutate((d) => {
        (d.architectures.x86_64.artifacts.vmware as { release?: string }).release = undefined;
      }),
      code: "missing-field",
      path: "$.architectures.x86_64.artifacts.vmware.release",
    },
  ];
  it.each(cases)("$name", ({ json, code, path }) => {
    const r = parseStream(json);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error).toMatchObject({ kind: "StreamError", code, path });
    expect(r.error.message).toContain(path === "$" ? "stream" : path);
  });
});

describe("streamArchitecture", () => {
  it("finds an entry", () => expect(streamArchitecture(parsed(), "aarch64").ok).toBe(true));
  it("uses upstream's message for a missing one", () => {
    expect(streamArchitecture(parsed(), "ppc64le")).toEqual({ ok: false, message: "stream:rhcos-9.6 does not have architecture 'ppc64le'" });
    expect(missingArchitectureMessage(parsed(), "x")).toBe("stream:rhcos-9.6 does not have architecture 'x'");
  });
});
