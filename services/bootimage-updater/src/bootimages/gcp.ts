// GCP boot image rules (mco-behaviors.md §3.10.1).

import { deepCopy, isJsonObject, type JsonObject } from "./merge-patch.js";
import { error, patchFrom, skip, type PatchResult } from "./patch-result.js";
import { streamArchitecture, type Stream, type StreamArch } from "./stream.js";

const RHCOS_IMAGE_PREFIX = "projects/rhcos-cloud/global/images";

export function patchGcp(providerSpec: JsonObject, stream: Stream, _region: string, arch: StreamArch): PatchResult {
  const entry = streamArchitecture(stream, arch);
  // Lockstep rule (§3.9): a missing architecture is an error on every platform.
  if (!entry.ok) return error(entry.message);
  const gcp = entry.entry.gcp;
  if (!gcp) return skip(`stream ${stream.name} has no GCP image for architecture ${arch}`);
  const target = `projects/${gcp.project}/global/images/${gcp.name}`;

  const disks = providerSpec["disks"];
  if (!Array.isArray(disks)) return error("providerSpec disks must be a list");
  const bootDisks: { index: number; image: string }[] = [];
  for (const [index, disk] of disks.entries()) {
    if (!isJsonObject(disk)) return error(`providerSpec disks[${index}] must be an object`);
    if (disk["boot"] !== true) continue;
    const image = disk["image"] ?? "";
    if (typeof image !== "string") return error(`providerSpec disks[${index}].image must be a string`);
    bootDisks.push({ index, image });
  }
  if (bootDisks.length === 0) return skip("providerSpec has no boot disk");

  const stale = bootDisks.filter((d) => d.image !== target);
  const custom = stale.find((d) => !d.image.startsWith(RHCOS_IMAGE_PREFIX));
  if (custom) return skip(`boot disk ${custom.index} uses custom image ${JSON.stringify(custom.image)}, not an RHCOS image from ${RHCOS_IMAGE_PREFIX}`);
  const current = bootDisks[0]?.image ?? "";
  if (stale.length === 0) return { action: "upToDate", currentImage: current, targetImage: target };

  const modified = deepCopy(providerSpec);
  const modDisks = modified["disks"] as JsonObject[];
  for (const d of stale) (modDisks[d.index] as JsonObject)["image"] = target;
  return patchFrom(providerSpec, modified, stale[0]?.image ?? current, target);
}
