import { describe, expect, it } from "vitest";
import { CRD_NAMES, decideMode } from "./stand-back.js";

const ours = { metadata: { annotations: { "lockstep.io/crd-owner": "lockstep" } } };
const upstream = { metadata: { annotations: { "release.openshift.io/feature-set": "TechPreviewNoUpgrade" } } };

describe("decideMode", () => {
  it("writes only through Lockstep's own CRDs", () => {
    expect(decideMode(CRD_NAMES.map((name) => ({ name, crd: ours }))).mode).toBe("writing");
  });
  it("stands back when any CRD is someone else's, and says whose", () => {
    const d = decideMode(CRD_NAMES.map((name, i) => ({ name, crd: i === 0 ? upstream : ours })));
    expect(d.mode).toBe("standing-back");
    expect(d.detail).toContain(CRD_NAMES[0]);
    expect(d.detail).toContain("TechPreviewNoUpgrade");
  });
  it("stands back rather than waits when foreign and missing CRDs mix", () => {
    expect(decideMode(CRD_NAMES.map((name, i) => ({ name, crd: i === 0 ? upstream : undefined }))).mode).toBe("standing-back");
  });
  it("reports missing CRDs", () => {
    const d = decideMode(CRD_NAMES.map((name, i) => ({ name, crd: i === 1 ? undefined : ours })));
    expect(d).toEqual({ mode: "crds-missing", detail: expect.stringContaining(CRD_NAMES[1]!) });
  });
});
