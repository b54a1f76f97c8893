import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { PATCH_FAILURES_METRIC, patchFailures } from "./patch-metrics.js";

describe("lockstep_bootimage_machineset_patch_failures_total", () => {
  it("starts every reason at 0 and counts failures per reason", async () => {
    const registry = new Registry();
    const failed = patchFailures(registry);
    let text = await registry.getSingleMetricAsString(PATCH_FAILURES_METRIC);
    expect(text).toContain(`${PATCH_FAILURES_METRIC}{reason="request"} 0`);
    expect(text).toContain(`${PATCH_FAILURES_METRIC}{reason="template"} 0`);
    failed("request");
    failed("request");
    failed("template");
    text = await registry.getSingleMetricAsString(PATCH_FAILURES_METRIC);
    expect(text).toContain(`${PATCH_FAILURES_METRIC}{reason="request"} 2`);
    expect(text).toContain(`${PATCH_FAILURES_METRIC}{reason="template"} 1`);
  });
});
