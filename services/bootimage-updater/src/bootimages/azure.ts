// Azure boot image rules (mco-behaviors.md §3.10.3): marketplace images by variant and Hyper-V
// generation; legacy gallery (resourceID) images migrate to the unpaid marketplace image.

import { deepCopy, isJsonObject, type JsonObject } from "./merge-patch.js";
import { error, patchFrom, skip, type PatchResult } from "./patch-result.js";
import { streamArchitecture, type Stream, type StreamArch } from "./stream.js";

const IMAGE_FIELDS = ["publisher", "offer", "sku", "version", "resourceID", "type"] as const;
type AzureImage = Record<(typeof IMAGE_FIELDS)[number], string>;

const PAID_OFFERS: Readonly<Record<string, string>> = { "rh-ocp-worker": "ocp", "rh-opp-worker": "opp", "rh-oke-worker": "oke" };

function readImage(providerSpec: JsonObject): AzureImage | { error: string } {
  const raw = providerSpec["image"];
  if (!isJsonObject(raw)) return { error: "providerSpec image must be an object" };
  const out = {} as AzureImage;
  for (const f of IMAGE_FIELDS) {
    const v = raw[f] ?? "";
    if (typeof v !== "string") return { error: `providerSpec image.${f} must be a string` };
    out[f] = v;
  }
  return out;
}

/** The stream variant matching the current image, or undefined when it cannot be determined. */
export function azureVariant(image: Pick<AzureImage, "resourceID" | "publisher" | "offer">): string | undefined {
  if (image.resourceID !== "" || image.publisher === "azureopenshift") return "no-purchase-plan";
  const base = PAID_OFFERS[image.offer];
  if (!base) return undefined;
  if (image.publisher === "redhat") return base;
  if (image.publisher === "redhat-limited") return `${base}-emea`;
  return undefined;
}

function isGen2(image: AzureImage, variant: string, arch: StreamArch): boolean {
  if (image.resourceID !== "") return image.resourceID.includes("gen2");
  // An unpaid image the installer wrote before `type` existed follows the no-plan rule too.
  if (image.type === "MarketplaceNoPlan" || (image.type === "" && variant === "no-purchase-plan")) {
    return image.sku.includes("v2") || arch === "aarch64";
  }
  return !image.sku.includes("gen1");
}

function describe(image: AzureImage): string {
  return image.resourceID !== "" ? image.resourceID : `${image.publisher}:${image.offer}:${image.sku}:${image.version}`;
}

export function patchAzure(providerSpec: JsonObject, stream: Stream, _region: string, arch: StreamArch): PatchResult {
  if (arch === "ppc64le" || arch === "s390x") return { action: "excluded", reason: `architecture ${arch} is not supported on Azure` };
  const security = providerSpec["securityProfile"];
  const settings = isJsonObject(security) ? security["settings"] : undefined;
  const securityType = isJsonObject(settings) ? settings["securityType"] : undefined;
  if (typeof securityType === "string" && securityType !== "") {
    return { action: "excluded", reason: `securityProfile.settings.securityType is ${securityType}` };
  }

  const current = readImage(providerSpec);
  if ("error" in current) return error(current.error);
  const entry = streamArchitecture(stream, arch);
  if (!entry.ok) return error(entry.message);
  const variant = azureVariant(current);
  if (!variant) return error("could not determine azure marketplace variant, cannot update boot images");
  const marketplace = entry.entry.azureMarketplace;
  if (!marketplace) return skip(`stream ${stream.name} has no Azure marketplace images for ${arch}`);

  const images = Object.hasOwn(marketplace, variant) ? marketplace[variant] : undefined;
  if (!images) return error(`no Azure marketplace images available for variant ${variant}`);
  const gen2 = isGen2(current, variant, arch);
  const chosen = gen2 ? images.hyperVGen2 : images.hyperVGen1;
  if (!chosen) return error(`no ${gen2 ? "Gen2" : "Gen1"} Azure marketplace image available for architecture ${arch}`);

  const target: AzureImage = {
    publisher: chosen.publisher,
    offer: chosen.offer,
    sku: chosen.sku,
    version: chosen.version,
    resourceID: "",
    type: variant === "no-purchase-plan" ? "MarketplaceNoPlan" : "MarketplaceWithPlan",
  };
  if (IMAGE_FIELDS.every((f) => current[f] === target[f])) {
    return { action: "upToDate", currentImage: describe(current), targetImage: describe(target) };
  }
  const modified = deepCopy(providerSpec);
  modified["image"] = { ...target };
  return patchFrom(providerSpec, modified, describe(current), describe(target));
}
