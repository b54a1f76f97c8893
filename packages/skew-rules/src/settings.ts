import { type BootImageLimits, parseRhelVersion, tryParseOcpVersion, UPSTREAM_BOOT_IMAGE_LIMITS } from "@lockstep/versions";
import { z } from "zod";

/**
 * How paused pools that lag weigh on minor upgrades (mco-behaviors.md §5.6 rule 3):
 * `Block` (default, the product statement) or `AllowWithinKubeletSkew` (EUS-to-EUS procedure).
 */
export type PausedPoolsMode = "Block" | "AllowWithinKubeletSkew";

export interface SkewSettings {
  readonly pausedPools: PausedPoolsMode;
  /** Supported kubelet skew, in minors, of a target release; keyed by `major.minor`. */
  readonly kubeletSkew: { readonly default: number; readonly byMinor: Readonly<Record<string, number>> };
  /** Boot image skew limits of a release; keyed by `major.minor` (§4.6). */
  readonly bootImageLimits: { readonly default: BootImageLimits; readonly byMinor: Readonly<Record<string, BootImageLimits>> };
}

export const DEFAULT_SKEW_SETTINGS: SkewSettings = Object.freeze({
  pausedPools: "Block",
  kubeletSkew: { default: 2, byMinor: {} },
  bootImageLimits: { default: UPSTREAM_BOOT_IMAGE_LIMITS, byMinor: {} },
});

const minorKey = z.string().regex(/^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$/, "keys must be major.minor, e.g. 4.22");
const ocpLimit = z.string().refine((s) => tryParseOcpVersion(s).ok && /^[0-9]+\.[0-9]+\.[0-9]+$/.test(s), "must be x.y.z");
const rhelLimit = z.string().refine((s) => {
  try {
    parseRhelVersion(s);
    return true;
  } catch {
    return false;
  }
}, "must be major.minor, e.g. 9.2");
const limits = z.object({ ocpVersion: ocpLimit, rhelVersion: rhelLimit });
const skew = z.number().int().min(0).max(10);

/** Validates settings from configuration, filling upstream defaults; errors list every problem. */
export const skewSettingsSchema = z.object({
  pausedPools: z.enum(["Block", "AllowWithinKubeletSkew"]).default("Block"),
  kubeletSkew: z
    .object({ default: skew.default(2), byMinor: z.record(minorKey, skew).default({}) })
    .default({ default: 2, byMinor: {} }),
  bootImageLimits: z
    .object({ default: limits.default({ ...UPSTREAM_BOOT_IMAGE_LIMITS }), byMinor: z.record(minorKey, limits).default({}) })
    .default({ default: { ...UPSTREAM_BOOT_IMAGE_LIMITS }, byMinor: {} }),
});

export function parseSkewSettings(input: unknown): SkewSettings {
  return skewSettingsSchema.parse(input ?? {});
}

function minorOf(version: string): string | undefined {
  const parsed = tryParseOcpVersion(version);
  return parsed.ok ? `${parsed.value.major}.${parsed.value.minor}` : undefined;
}

/** The limits of the release `version` (any OCP version text); unknown releases get the default. */
export function bootImageLimitsFor(settings: SkewSettings, version: string): BootImageLimits {
  const key = minorOf(version);
  return (key !== undefined ? settings.bootImageLimits.byMinor[key] : undefined) ?? settings.bootImageLimits.default;
}

export function kubeletSkewFor(settings: SkewSettings, version: string): number {
  const key = minorOf(version);
  return (key !== undefined ? settings.kubeletSkew.byMinor[key] : undefined) ?? settings.kubeletSkew.default;
}

