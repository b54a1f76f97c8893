// The cluster boot image record the bootimage-updater maintains in Automatic mode (mco-behaviors.md §4.5).
// The install version it is seeded with comes from @lockstep/versions (installVersion).

import { normaliseOcpVersion as formatNormalised, tryParseOcpVersion } from "@lockstep/versions";

/** x.y.z of an OCP version, dropping pre-release and build suffixes (4.16.0-ec.3 → 4.16.0). */
export function normaliseOcpVersion(v: string): string | undefined {
  const parsed = tryParseOcpVersion(v.trim());
  return parsed.ok ? formatNormalised(parsed.value) : undefined;
}

const RHCOS = /^(\d+)\.(\d+)\.(\d{8}|\d{12})-(\d+)$/;

/** Orders RHCOS release strings; unparsable ones sort last so that they are never "lowest". */
export function compareRhcosReleases(a: string, b: string): number {
  const ma = RHCOS.exec(a);
  const mb = RHCOS.exec(b);
  if (!ma || !mb) return ma ? -1 : mb ? 1 : 0;
  for (let i = 1; i <= 4; i++) {
    const d = Number(ma[i]) - Number(mb[i]);
    if (d !== 0) return d;
  }
  return 0;
}

export type SkewRecordUpdate =
  | { action: "set"; ocpVersion?: string; rhcosVersion?: string; why: string }
  | { action: "unchanged"; why: string };

export interface SkewInputs {
  /** BootImagePolicy status skew mode: only Automatic is maintained here. */
  readonly mode: string;
  readonly evaluated: number;
  readonly errored: number;
  readonly skipped: number;
  /** Marketplace RHCOS releases seen in the pass. */
  readonly marketplaceReleases: readonly string[];
  /** coreos-bootimages releaseVersion. */
  readonly releaseVersion: string;
  readonly installVersion: string;
}

export function skewRecordUpdate(i: SkewInputs): SkewRecordUpdate {
  if (i.mode !== "Automatic") return { action: "unchanged", why: `skew enforcement mode is ${i.mode || "unset"}, not Automatic` };
  if (i.errored > 0) return { action: "unchanged", why: "the pass had errors" };
  // Lockstep SHOULD (§3.19): with nothing evaluated there is no evidence about boot images.
  if (i.evaluated === 0) return { action: "unchanged", why: "no MachineSet was evaluated" };
  if (i.skipped > 0) return { action: "set", ocpVersion: i.installVersion, why: `${i.skipped} MachineSet(s) skipped: reset to the install version` };
  if (i.marketplaceReleases.length > 0) {
    const lowest = [...i.marketplaceReleases].sort(compareRhcosReleases)[0] as string;
    return { action: "set", rhcosVersion: lowest, why: "lowest marketplace RHCOS release in use" };
  }
  const ocp = normaliseOcpVersion(i.releaseVersion);
  if (!ocp) return { action: "unchanged", why: `coreos-bootimages releaseVersion ${JSON.stringify(i.releaseVersion)} is not a version` };
  return { action: "set", ocpVersion: ocp, why: "every MachineSet is on the release's boot images" };
}
