// The age of a consumer's view as it goes out in its gRPC answers (the status-aggregator's
// GetUpdateStatus and RenderStatus, the skew-enforcer's SkewService, the bootimage-updater's
// GetStatus), so the CLI can say when what it prints may be out of date.
import type { StateFreshness } from "@lockstep/contracts";
import type { Freshness } from "@lockstep/runtime";

/** Pure: the wire form, age to the tenth of a second. */
export function freshnessToProto(f: Freshness): StateFreshness {
  return { ageSeconds: Math.round(f.ageSeconds * 10) / 10, stale: !f.fresh, maxAgeSeconds: f.maxAgeSeconds, heard: f.heard };
}
