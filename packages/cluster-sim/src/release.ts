// Release arithmetic for simulated OpenShift versions: pull specs, Kubernetes and RHCOS versions.
// All values are derived deterministically from the version string.
import { stableHex } from "./rng.js";

export interface ParsedVersion {
  major: number;
  minor: number;
  patch: number;
}

export function parseVersion(v: string): ParsedVersion {
  const m = /^(\d+)\.(\d+)\.(\d+)/.exec(v);
  if (!m) throw new Error(`not an x.y.z version: "${v}"`);
  return { major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3]) };
}

export function sameMinor(a: string, b: string): boolean {
  const x = parseVersion(a);
  const y = parseVersion(b);
  return x.major === y.major && x.minor === y.minor;
}

export function releaseImage(version: string): string {
  return `quay.io/openshift-release-dev/ocp-release@sha256:${stableHex(64, "release", version)}`;
}

/** The Kubernetes version an OpenShift minor ships (4.15 → 1.28). */
export function kubeVersion(version: string): string {
  const v = parseVersion(version);
  return `1.${v.minor + 13}.${Math.min(v.patch + 2, 14)}`;
}

/** RHCOS build string for a release: `415.92.<stamp>-0` before 4.19, `9.6.<stamp>-0` after. */
export function rhcosRelease(version: string): string {
  const v = parseVersion(version);
  const day = 1 + (parseInt(stableHex(4, "day", version), 16) % 27);
  const month = ((v.minor + v.patch) % 12) + 1;
  const year = 2020 + Math.max(0, v.minor - 6) / 2;
  const stamp = `${Math.floor(year)}${String(month).padStart(2, "0")}${String(day).padStart(2, "0")}${stableHex(4, "hm", version).replace(/[a-f]/g, "1")}`;
  if (v.major === 4 && v.minor < 19) return `4${v.minor}.${v.minor >= 13 ? 92 : 86}.${stamp}-0`;
  return `9.6.${stamp}-0`;
}

export function osImageUrl(version: string): string {
  return `quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:${stableHex(64, "rhcos", version)}`;
}

/** Rendered MachineConfig name for a pool at a release (upstream: rendered-<pool>-<md5 of the content>). */
export function renderedName(pool: string, version: string): string {
  return `rendered-${pool}-${stableHex(32, "rendered", pool, version)}`;
}
