import type { ClusterVersionState } from "@lockstep/contracts";
import { normaliseOcpVersion, tryParseOcpVersion } from "@lockstep/versions";

/** Deliberately a violation of every limit (mco-behaviors.md §4.3). */
export const UNKNOWN_INSTALL_VERSION = "0.0.0";

/**
 * The install version: the oldest `Completed` history entry (history is newest first), else the
 * oldest entry, normalised to x.y.z; `0.0.0` when ClusterVersion is missing or unparsable.
 */
export function installVersion(cv: ClusterVersionState | undefined): string {
  const history = cv?.history ?? [];
  if (history.length === 0) return UNKNOWN_INSTALL_VERSION;
  const entry = [...history].reverse().find((h) => h.state === "Completed") ?? history[history.length - 1];
  const parsed = tryParseOcpVersion(entry?.version ?? "");
  return parsed.ok ? normaliseOcpVersion(parsed.value) : UNKNOWN_INSTALL_VERSION;
}

/** `<X.Y>` of the documentation link in message B: history[0]'s major.minor, else `latest`. */
export function docsMinor(cv: ClusterVersionState | undefined): string {
  const parsed = tryParseOcpVersion(cv?.history[0]?.version ?? "");
  return parsed.ok ? `${parsed.value.major}.${parsed.value.minor}` : "latest";
}
