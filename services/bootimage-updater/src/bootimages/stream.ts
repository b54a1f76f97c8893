// CoreOS stream metadata (the `coreos-bootimages` ConfigMap `data.stream`), parsed into only the
// fields the boot image controller uses (mco-behaviors.md §3.9). Parsing never throws: a bad
// document yields a StreamError naming the JSON path at fault.

export type StreamArch = "x86_64" | "aarch64" | "s390x" | "ppc64le";

export interface AwsRegionImage {
  readonly release: string;
  readonly image: string;
}

export interface GcpImage {
  readonly project: string;
  readonly name: string;
  readonly release: string;
  readonly family: string;
}

export interface AzureMarketplaceImage {
  readonly publisher: string;
  readonly offer: string;
  readonly sku: string;
  readonly version: string;
}

export interface AzureMarketplaceVariant {
  readonly hyperVGen1?: AzureMarketplaceImage;
  readonly hyperVGen2?: AzureMarketplaceImage;
}

export interface VmwareArtifact {
  readonly release: string;
  readonly ova?: { readonly location: string; readonly sha256: string };
}

export interface StreamArchitecture {
  /** artifacts.aws.release: the RHCOS release that yields the marketplace version token. */
  readonly awsRelease?: string;
  readonly vmware?: VmwareArtifact;
  /** images.aws.regions; absent when the stream has no AWS images for this architecture. */
  readonly awsRegions?: Readonly<Record<string, AwsRegionImage>>;
  readonly gcp?: GcpImage;
  /** rhel-coreos-extensions.marketplace.azure, keyed by variant (no-purchase-plan, ocp, ...). */
  readonly azureMarketplace?: Readonly<Record<string, AzureMarketplaceVariant>>;
}

export interface Stream {
  /** Top-level `stream`, e.g. rhcos-9.6; used in error prefixes. */
  readonly name: string;
  readonly architectures: Readonly<Record<string, StreamArchitecture>>;
}

export interface StreamError {
  readonly kind: "StreamError";
  /** invalid-json, missing-field, wrong-type. */
  readonly code: "empty" | "invalid-json" | "missing-field" | "wrong-type";
  /** JSON path of the problem, `$` for the document itself. */
  readonly path: string;
  readonly message: string;
}

export type StreamParseResult = { ok: true; stream: Stream } | { ok: false; error: StreamError };

type Json = unknown;
type JsonObject = Record<string, Json>;

class ShapeError extends Error {
  constructor(
    readonly code: StreamError["code"],
    readonly path: string,
    detail: string,
  ) {
    super(detail);
  }
}

function isObject(v: Json): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function obj(v: Json, path: string): JsonObject {
  if (!isObject(v)) throw new ShapeError("wrong-type", path, `${path} must be an object`);
  return v;
}

function optObj(parent: JsonObject, key: string, path: string): JsonObject | undefined {
  const v = parent[key];
  return v === undefined || v === null ? undefined : obj(v, `${path}.${key}`);
}

function reqStr(parent: JsonObject, key: string, path: string): string {
  const v = parent[key];
  if (v === undefined || v === null) throw new ShapeError("missing-field", `${path}.${key}`, `${path}.${key} is missing`);
  if (typeof v !== "string") throw new ShapeError("wrong-type", `${path}.${key}`, `${path}.${key} must be a string`);
  // An empty target is as bad as a missing one: never patch with it (§3.9 Lockstep rule).
  if (v === "") throw new ShapeError("missing-field", `${path}.${key}`, `${path}.${key} is empty`);
  return v;
}

function optStr(parent: JsonObject, key: string, path: string): string {
  const v = parent[key];
  if (v === undefined || v === null) return "";
  if (typeof v !== "string") throw new ShapeError("wrong-type", `${path}.${key}`, `${path}.${key} must be a string`);
  return v;
}

function parseAzureImage(v: Json, path: string): AzureMarketplaceImage {
  const o = obj(v, path);
  return {
    publisher: reqStr(o, "publisher", path),
    offer: reqStr(o, "offer", path),
    sku: reqStr(o, "sku", path),
    version: reqStr(o, "version", path),
  };
}

function parseArchitecture(v: Json, path: string): StreamArchitecture {
  const a = obj(v, path);
  const out: {
    awsRelease?: string;
    vmware?: VmwareArtifact;
    awsRegions?: Record<string, AwsRegionImage>;
    gcp?: GcpImage;
    azureMarketplace?: Record<string, AzureMarketplaceVariant>;
  } = {};

  const artifacts = optObj(a, "artifacts", path);
  if (artifacts) {
    const ap = `${path}.artifacts`;
    const aws = optObj(artifacts, "aws", ap);
    if (aws) out.awsRelease = reqStr(aws, "release", `${ap}.aws`);
    const vmware = optObj(artifacts, "vmware", ap);
    if (vmware) {
      const vp = `${ap}.vmware`;
      const release = reqStr(vmware, "release", vp);
      const disk = optObj(optObj(optObj(vmware, "formats", vp) ?? {}, "ova", `${vp}.formats`) ?? {}, "disk", `${vp}.formats.ova`);
      out.vmware = disk
        ? { release, ova: { location: reqStr(disk, "location", `${vp}.formats.ova.disk`), sha256: reqStr(disk, "sha256", `${vp}.formats.ova.disk`) } }
        : { release };
    }
  }

  const images = optObj(a, "images", path);
  if (images) {
    const ip = `${path}.images`;
    const aws = optObj(images, "aws", ip);
    if (aws) {
      const regions = optObj(aws, "regions", `${ip}.aws`) ?? {};
      const parsed: Record<string, AwsRegionImage> = {};
      for (const [region, entry] of Object.entries(regions)) {
        const rp = `${ip}.aws.regions.${region}`;
        const r = obj(entry, rp);
        parsed[region] = { image: reqStr(r, "image", rp), release: optStr(r, "release", rp) };
      }
      out.awsRegions = parsed;
    }
    const gcp = optObj(images, "gcp", ip);
    if (gcp) {
      const gp = `${ip}.gcp`;
      out.gcp = {
        project: reqStr(gcp, "project", gp),
        name: reqStr(gcp, "name", gp),
        release: optStr(gcp, "release", gp),
        family: optStr(gcp, "family", gp),
      };
    }
  }

  const ext = optObj(a, "rhel-coreos-extensions", path);
  const marketplace = ext ? optObj(ext, "marketplace", `${path}.rhel-coreos-extensions`) : undefined;
  const azure = marketplace ? optObj(marketplace, "azure", `${path}.rhel-coreos-extensions.marketplace`) : undefined;
  if (azure) {
    const zp = `${path}.rhel-coreos-extensions.marketplace.azure`;
    const variants: Record<string, AzureMarketplaceVariant> = {};
    for (const [variant, entry] of Object.entries(azure)) {
      const vp = `${zp}.${variant}`;
      const vo = obj(entry, vp);
      const gen1 = vo["hyperVGen1"];
      const gen2 = vo["hyperVGen2"];
      variants[variant] = {
        ...(gen1 === undefined || gen1 === null ? {} : { hyperVGen1: parseAzureImage(gen1, `${vp}.hyperVGen1`) }),
        ...(gen2 === undefined || gen2 === null ? {} : { hyperVGen2: parseAzureImage(gen2, `${vp}.hyperVGen2`) }),
      };
    }
    out.azureMarketplace = variants;
  }
  return out;
}

/** Parses `data.stream`. Missing platform blocks are not errors (patchers skip); malformed ones are. */
export function parseStream(json: string): StreamParseResult {
  if (json.trim() === "") {
    return { ok: false, error: { kind: "StreamError", code: "empty", path: "$", message: "stream data is empty" } };
  }
  let doc: Json;
  try {
    doc = JSON.parse(json);
  } catch (e) {
    const detail = e instanceof Error ? e.message : String(e);
    return { ok: false, error: { kind: "StreamError", code: "invalid-json", path: "$", message: `stream is not valid JSON: ${detail}` } };
  }
  try {
    const root = obj(doc, "$");
    const name = reqStr(root, "stream", "$");
    const archs = root["architectures"];
    if (archs === undefined || archs === null) throw new ShapeError("missing-field", "$.architectures", "$.architectures is missing");
    const archObj = obj(archs, "$.architectures");
    const architectures: Record<string, StreamArchitecture> = {};
    for (const [arch, entry] of Object.entries(archObj)) {
      architectures[arch] = parseArchitecture(entry, `$.architectures.${arch}`);
    }
    return { ok: true, stream: { name, architectures } };
  } catch (e) {
    if (e instanceof ShapeError) {
      return { ok: false, error: { kind: "StreamError", code: e.code, path: e.path, message: `invalid stream: ${e.message}` } };
    }
    throw e;
  }
}

/** Upstream's message for an architecture the stream lacks (§3.7 row 6). */
export function missingArchitectureMessage(stream: Stream, arch: string): string {
  return `stream:${stream.name} does not have architecture '${arch}'`;
}

/** The architecture entry, or the upstream error message when the stream has none. */
export function streamArchitecture(
  stream: Stream,
  arch: StreamArch,
): { ok: true; entry: StreamArchitecture } | { ok: false; message: string } {
  const entry = Object.hasOwn(stream.architectures, arch) ? stream.architectures[arch] : undefined;
  return entry ? { ok: true, entry } : { ok: false, message: missingArchitectureMessage(stream, arch) };
}
