// AWS boot image rules, main (mco-behaviors.md §3.10.2). EC2 DescribeImages is I/O: the edge looks
// images up (see awsLookupsNeeded) and passes the answers in an AwsImageCatalog, so that this
// classification stays pure. Without a catalog (no EC2 credentials) the allow-list behaviour of
// §3.18 applies: anything not provably a standard RHCOS AMI is skipped.

import { deepCopy, isJsonObject, type JsonObject } from "./merge-patch.js";
import { error, patchFrom, skip, type PatchResult } from "./patch-result.js";
import { streamArchitecture, type Stream, type StreamArch } from "./stream.js";

export const RHCOS_AMI_OWNER = "531415883065";
export const MARKETPLACE_AMI_OWNER = "679593333241";

export interface Ec2Image {
  readonly imageId: string;
  readonly ownerId: string;
  readonly name: string;
  readonly description: string;
  /** RFC 3339, as EC2 reports CreationDate. */
  readonly creationDate: string;
}

export type Ec2Lookup<T> = { ok: true; value: T } | { ok: false; error: string };

export interface AwsImageCatalog {
  /** DescribeImages by AMI id; value null when EC2 knows no such image. */
  readonly images: Readonly<Record<string, Ec2Lookup<Ec2Image | null>>>;
  /** DescribeImages (owner alias aws-marketplace, name `*<productId>*`) by product id. */
  readonly marketplace: Readonly<Record<string, Ec2Lookup<readonly Ec2Image[]>>>;
}

export interface AwsEnv {
  /** Absent when the updater has no EC2 credentials. */
  readonly catalog?: AwsImageCatalog;
  /** AMIs known to be standard RHCOS images (historic installer AMIs); used only without a catalog. */
  readonly allowedAmis?: ReadonlySet<string>;
}

const TRAILING_UUID = /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;
const RHCOS_RELEASE = /(\d+)\.(\d+)\.(\d{8}|\d{12})-(\d+)/;

/** The marketplace product id carried at the end of a marketplace AMI name, if any. */
export function marketplaceProductId(image: Ec2Image): string | undefined {
  if (image.ownerId !== MARKETPLACE_AMI_OWNER) return undefined;
  return TRAILING_UUID.exec(image.name)?.[1]?.toLowerCase();
}

/** The AMI id in use and the region, or why there is none. */
export function currentAmi(providerSpec: JsonObject, fallbackRegion: string): { amiId: string; region: string } | { skip: string } | { error: string } {
  const ami = providerSpec["ami"];
  if (ami !== undefined && ami !== null && !isJsonObject(ami)) return { error: "providerSpec ami must be an object" };
  const id = isJsonObject(ami) ? ami["id"] : undefined;
  if (id !== undefined && id !== null && typeof id !== "string") return { error: "providerSpec ami.id must be a string" };
  if (!id) return { skip: "providerSpec ami.id is unset (AMI given by ARN or filters, or copied by the installer)" };
  const placement = providerSpec["placement"];
  const region = isJsonObject(placement) && typeof placement["region"] === "string" && placement["region"] ? placement["region"] : fallbackRegion;
  if (!region) return { error: "providerSpec placement.region is unset and the cluster has no region" };
  return { amiId: id, region };
}

function token(release: string): [number, number] | undefined {
  const m = /^(\d+)\.(\d+)/.exec(release);
  return m ? [Number(m[1]), Number(m[2])] : undefined;
}

function cmpToken(a: [number, number], b: [number, number]): number {
  return a[0] - b[0] || a[1] - b[1];
}

function resolveMarketplace(
  productId: string,
  candidates: readonly Ec2Image[],
  targetRelease: string,
): { image: Ec2Image; release: string } | { skip: string } {
  const target = token(targetRelease);
  if (!target) return { skip: `stream AWS release ${JSON.stringify(targetRelease)} has no version token` };
  let best: { image: Ec2Image; release: string; tok: [number, number] } | undefined;
  let onlyLegacy = candidates.length > 0;
  for (const image of candidates) {
    const m = RHCOS_RELEASE.exec(image.description);
    if (!m) continue;
    const tok: [number, number] = [Number(m[1]), Number(m[2])];
    if (tok[0] <= 100) onlyLegacy = false;
    // An older token is accepted: the newest AMI may not have replicated to this region yet.
    if (cmpToken(tok, target) > 0) continue;
    const better =
      !best || cmpToken(tok, best.tok) > 0 || (cmpToken(tok, best.tok) === 0 && Date.parse(image.creationDate) > Date.parse(best.image.creationDate));
    if (better) best = { image, release: m[0], tok };
  }
  if (best) return { image: best.image, release: best.release };
  if (onlyLegacy) {
    return {
      skip: `marketplace product ${productId} only has pre-4.19 RHCOS images; the boot image cannot be updated until newer AMIs are published`,
    };
  }
  return { skip: `no marketplace image for product ${productId} at or below RHCOS ${target.join(".")}` };
}

function replaceAmi(providerSpec: JsonObject, current: string, target: string, rhcosVersion?: string): PatchResult {
  const modified = deepCopy(providerSpec);
  // id, arn and filters are mutually exclusive: replace the whole struct.
  modified["ami"] = { id: target };
  return patchFrom(providerSpec, modified, current, target, rhcosVersion === undefined ? {} : { rhcosVersion });
}

export function patchAws(providerSpec: JsonObject, stream: Stream, region: string, arch: StreamArch, env: AwsEnv = {}): PatchResult {
  const cur = currentAmi(providerSpec, region);
  if ("error" in cur) return error(cur.error);
  if ("skip" in cur) return skip(cur.skip);
  const entry = streamArchitecture(stream, arch);
  if (!entry.ok) return error(entry.message);
  const regionImage = entry.entry.awsRegions?.[cur.region]?.image;

  if (!env.catalog) {
    if (regionImage === cur.amiId) return { action: "upToDate", currentImage: cur.amiId, targetImage: regionImage };
    if (!env.allowedAmis?.has(cur.amiId)) {
      return skip(`AMI ${cur.amiId} cannot be verified as a standard RHCOS image without EC2 access`);
    }
    if (!regionImage) return skip(`stream ${stream.name} has no ${arch} AMI for region ${cur.region}`);
    return replaceAmi(providerSpec, cur.amiId, regionImage);
  }

  const described = env.catalog.images[cur.amiId];
  if (!described) return error(`EC2 image ${cur.amiId} was not looked up`);
  if (!described.ok) return error(`failed to describe AMI ${cur.amiId} in ${cur.region}: ${described.error}`);
  const image = described.value;
  if (!image) return skip(`AMI ${cur.amiId} was not found in ${cur.region}`);

  if (image.ownerId === RHCOS_AMI_OWNER) {
    if (!regionImage) return skip(`stream ${stream.name} has no ${arch} AMI for region ${cur.region}`);
    if (regionImage === cur.amiId) return { action: "upToDate", currentImage: cur.amiId, targetImage: regionImage };
    return replaceAmi(providerSpec, cur.amiId, regionImage);
  }
  const productId = marketplaceProductId(image);
  if (!productId) return skip(`AMI ${cur.amiId} (owner ${image.ownerId}) is not a standard RHCOS or marketplace image`);
  const releaseOfStream = entry.entry.awsRelease;
  if (!releaseOfStream) return skip(`stream ${stream.name} has no AWS release for ${arch}`);
  const found = env.catalog.marketplace[productId];
  if (!found) return error(`marketplace images for product ${productId} were not looked up`);
  if (!found.ok) return error(`failed to list marketplace images for product ${productId} in ${cur.region}: ${found.error}`);
  const chosen = resolveMarketplace(productId, found.value, releaseOfStream);
  if ("skip" in chosen) return skip(chosen.skip);
  if (chosen.image.imageId === cur.amiId) {
    return { action: "upToDate", currentImage: cur.amiId, targetImage: cur.amiId, rhcosVersion: chosen.release };
  }
  return replaceAmi(providerSpec, cur.amiId, chosen.image.imageId, chosen.release);
}

/** The EC2 look-ups the edge must make before planning: current AMIs to describe, per region. */
export function awsLookupsNeeded(providerSpecs: readonly JsonObject[], fallbackRegion: string): { region: string; amiId: string }[] {
  const seen = new Set<string>();
  const out: { region: string; amiId: string }[] = [];
  for (const spec of providerSpecs) {
    const cur = currentAmi(spec, fallbackRegion);
    if (!("amiId" in cur) || seen.has(cur.amiId)) continue;
    seen.add(cur.amiId);
    out.push(cur);
  }
  return out;
}
