import type { ClusterVersionState } from "@lockstep/contracts";
import { tryParseOcpVersion } from "@lockstep/versions";

/** `<X.Y>` of the documentation link in message B: history[0]'s major.minor, else `latest`. */
export function docsMinor(cv: ClusterVersionState | undefined): string {
  const parsed = tryParseOcpVersion(cv?.history[0]?.version ?? "");
  return parsed.ok ? `${parsed.value.major}.${parsed.value.minor}` : "latest";
}
