import { describe, expect, it } from "vitest";
import { staleWarning } from "./stale-warning.js";

describe("staleWarning", () => {
  it("warns only when the view is stale", () => {
    expect(staleWarning(undefined)).toBeUndefined();
    expect(staleWarning({ ageSeconds: 2, stale: false, maxAgeSeconds: 15, heard: true })).toBeUndefined();
    expect(staleWarning({ ageSeconds: 41.4, stale: true, maxAgeSeconds: 15, heard: true })).toBe(
      "warning: Lockstep's view of the cluster is 41 s old (the watcher has not been heard from); what follows may be out of date",
    );
    expect(staleWarning({ ageSeconds: 20, stale: true, maxAgeSeconds: 15, heard: false })).toBe(
      "warning: Lockstep's view of the cluster is 20 s old (the watcher has not been heard from since the status-aggregator started); what follows may be out of date",
    );
    expect(staleWarning({ ageSeconds: 20, stale: true, maxAgeSeconds: 15, heard: false }, "skew-enforcer")).toBe(
      "warning: Lockstep's view of the cluster is 20 s old (the watcher has not been heard from since the skew-enforcer started); what follows may be out of date",
    );
  });
});
