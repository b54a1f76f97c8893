// The outcome of one platform patcher for one providerSpec (mco-behaviors.md §3.7 rows 6–10).

import { createMergePatch, type JsonObject } from "./merge-patch.js";

export type PatchResult =
  | {
      action: "patch";
      newProviderSpec: JsonObject;
      /** RFC 7386 merge patch of the providerSpec only; {} when only an out-of-band change is due (vSphere). */
      patch: JsonObject;
      currentImage: string;
      targetImage: string;
      /** What the hot-loop guard compares (§3.13): the new providerSpec, or the OVA release on vSphere. */
      hotLoopValue: string;
      /** Marketplace RHCOS release involved, for skew bookkeeping (§4.5). */
      rhcosVersion?: string;
      /** vSphere: the template to (re)import before patching. */
      templateUpdate?: VSphereTemplateUpdate;
    }
  | { action: "upToDate"; currentImage: string; targetImage: string; rhcosVersion?: string }
  /** Deliberate: never degrades, counted as skipped, resets the skew record. */
  | { action: "skip"; reason: string }
  /** Out of scope (for example confidential VMs on Azure): counted as reconciled, no skew effect. */
  | { action: "excluded"; reason: string }
  /** Degrades. */
  | { action: "error"; message: string };

export interface VSphereTemplateUpdate {
  readonly templateName: string;
  readonly targetRelease: string;
  readonly currentRelease: string;
  readonly ovaLocation: string;
  readonly ovaSha256: string;
}

export function skip(reason: string): PatchResult {
  return { action: "skip", reason };
}

export function error(message: string): PatchResult {
  return { action: "error", message };
}

/** Builds a patch result from the original and the modified providerSpec. */
export function patchFrom(
  original: JsonObject,
  modified: JsonObject,
  currentImage: string,
  targetImage: string,
  extra: { rhcosVersion?: string; hotLoopValue?: string; templateUpdate?: VSphereTemplateUpdate } = {},
): PatchResult {
  return {
    action: "patch",
    newProviderSpec: modified,
    patch: createMergePatch(original, modified),
    currentImage,
    targetImage,
    hotLoopValue: extra.hotLoopValue ?? JSON.stringify(modified),
    ...(extra.rhcosVersion === undefined ? {} : { rhcosVersion: extra.rhcosVersion }),
    ...(extra.templateUpdate === undefined ? {} : { templateUpdate: extra.templateUpdate }),
  };
}
