import { describe, expect, it } from "vitest";
import { bootImageLimitsFor, DEFAULT_SKEW_SETTINGS, kubeletSkewFor, parseSkewSettings } from "./settings.js";

describe("skew settings", () => {
  it("defaults to Block, kubelet skew 2 and upstream limits 4.13.0 / 9.2", () => {
    const s = parseSkewSettings(undefined);
    expect(s).toEqual(DEFAULT_SKEW_SETTINGS);
    expect(bootImageLimitsFor(s, "4.22.3")).toEqual({ ocpVersion: "4.13.0", rhelVersion: "9.2" });
    expect(kubeletSkewFor(s, "4.16.0")).toBe(2);
  });

  it("keys limits and kubelet skew by release minor, falling back to the default", () => {
    const s = parseSkewSettings({
      pausedPools: "AllowWithinKubeletSkew",
      kubeletSkew: { byMinor: { "4.16": 3 } },
      bootImageLimits: { byMinor: { "5.0": { ocpVersion: "4.16.0", rhelVersion: "9.4" } } },
    });
    expect(s.pausedPools).toBe("AllowWithinKubeletSkew");
    expect(kubeletSkewFor(s, "4.16.0-rc.1")).toBe(3);
    expect(kubeletSkewFor(s, "4.17.0")).toBe(2);
    expect(bootImageLimitsFor(s, "5.0.2")).toEqual({ ocpVersion: "4.16.0", rhelVersion: "9.4" });
    expect(bootImageLimitsFor(s, "4.22.0")).toEqual({ ocpVersion: "4.13.0", rhelVersion: "9.2" });
    expect(bootImageLimitsFor(s, "not-a-version")).toEqual({ ocpVersion: "4.13.0", rhelVersion: "9.2" });
  });

  it("lists every problem of bad settings", () => {
    let issues: { path: PropertyKey[] }[] = [];
    try {
      parseSkewSettings({
        pausedPools: "Sometimes",
        kubeletSkew: { default: -1 },
        bootImageLimits: { byMinor: { "4.x": { ocpVersion: "4.13.0", rhelVersion: "9.2" }, "4.22": { ocpVersion: "4.13", rhelVersion: "9" } } },
      });
    } catch (err) {
      issues = (err as { issues: { path: PropertyKey[] }[] }).issues;
    }
    const paths = issues.map((i) => i.path.join("."));
    expect(paths).toEqual(
      expect.arrayContaining([
        "pausedPools",
        "kubeletSkew.default",
        "bootImageLimits.byMinor.4.x",
        "bootImageLimits.byMinor.4.22.ocpVersion",
        "bootImageLimits.byMinor.4.22.rhelVersion",
      ]),
    );
  });
});
