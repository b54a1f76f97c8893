import { parseConfig } from "@lockstep/runtime";
import { describe, expect, it } from "vitest";
import { skewEnforcerConfigSchema, skewSettingsFromConfig } from "./config.js";

const base = { NATS_URL: "nats://127.0.0.1:4222" };

describe("skew-enforcer config", () => {
  it("defaults to the agreed ports and upstream limits", () => {
    const r = parseConfig(skewEnforcerConfigSchema, base);
    if (!r.ok) throw new Error(r.errors.join("; "));
    expect(r.config.GRPC_PORT).toBe(9092);
    expect(r.config.HTTP_PORT).toBe(8092);
    expect(skewSettingsFromConfig(r.config)).toEqual({
      pausedPools: "Block",
      kubeletSkew: { default: 2, byMinor: {} },
      bootImageLimits: { default: { ocpVersion: "4.13.0", rhelVersion: "9.2" }, byMinor: {} },
    });
  });

  it("reads the EUS allowance and per-release overrides", () => {
    const r = parseConfig(skewEnforcerConfigSchema, {
      ...base,
      PAUSED_POOLS: "AllowWithinKubeletSkew",
      KUBELET_SKEW: "3",
      KUBELET_SKEW_BY_MINOR: "4.22=1, 4.23=2",
      BOOT_IMAGE_OCP_LIMIT: "4.14.0",
      BOOT_IMAGE_LIMITS_BY_MINOR: "4.23=4.15.0/9.4",
    });
    if (!r.ok) throw new Error(r.errors.join("; "));
    const s = skewSettingsFromConfig(r.config);
    expect(s.pausedPools).toBe("AllowWithinKubeletSkew");
    expect(s.kubeletSkew).toEqual({ default: 3, byMinor: { "4.22": 1, "4.23": 2 } });
    expect(s.bootImageLimits.default).toEqual({ ocpVersion: "4.14.0", rhelVersion: "9.2" });
    expect(s.bootImageLimits.byMinor).toEqual({ "4.23": { ocpVersion: "4.15.0", rhelVersion: "9.4" } });
  });

  it("lists every bad setting by its variable", () => {
    const r = parseConfig(skewEnforcerConfigSchema, {
      ...base,
      PAUSED_POOLS: "Sometimes",
      BOOT_IMAGE_RHEL_LIMIT: "nine",
      BOOT_IMAGE_LIMITS_BY_MINOR: "4.23=4.15/9.4",
      KUBELET_SKEW_BY_MINOR: "four=2",
    });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    const vars = r.errors.map((e) => e.split(":")[0]);
    expect(vars).toEqual(expect.arrayContaining(["PAUSED_POOLS", "BOOT_IMAGE_RHEL_LIMIT", "BOOT_IMAGE_LIMITS_BY_MINOR", "KUBELET_SKEW_BY_MINOR"]));
  });

  it("rejects malformed override lists and out-of-range skews", () => {
    const r = parseConfig(skewEnforcerConfigSchema, { ...base, KUBELET_SKEW: "11", BOOT_IMAGE_LIMITS_BY_MINOR: "4.23" });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors.some((e) => e.startsWith("KUBELET_SKEW:"))).toBe(true);
    expect(r.errors.some((e) => e.startsWith("BOOT_IMAGE_LIMITS_BY_MINOR:"))).toBe(true);
  });
});
