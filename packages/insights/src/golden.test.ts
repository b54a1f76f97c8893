// Golden cases of `oc adm upgrade status`: every `<case>-cv.yaml` in the fixtures folder, in both
// detail levels, compared byte for byte. Cases added to the folder are picked up automatically.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ocUpgradeStatusCases, ocUpgradeStatusDir } from "@lockstep/testing";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { evaluate } from "./evaluate.js";
import { fixtureNow } from "./fixture-now.js";
import { inputsFromDocuments } from "./kube-inputs.js";
import { MESSAGE_LIMIT, rowFromInsight, toNodeStatusInsight } from "./node-insight.js";
import { render } from "./render.js";
import { wallClockNow } from "./time.js";

const fixturesDir = ocUpgradeStatusDir();
const cases = ocUpgradeStatusCases();

function loadCase(name: string) {
  const file = (suffix: string) => join(fixturesDir, `${name}${suffix}`);
  const yaml = (suffix: string) => parse(readFileSync(file(suffix), "utf8")) as unknown;
  const optional = (suffix: string, read: (s: string) => unknown) => (existsSync(file(suffix)) ? read(suffix) : undefined);
  const inputs = inputsFromDocuments({
    clusterVersion: yaml("-cv.yaml"),
    clusterOperators: yaml("-co.yaml"),
    machineConfigPools: yaml("-mcp.yaml"),
    machineConfigs: yaml("-mc.yaml"),
    nodes: yaml("-node.yaml"),
    mcoDeployment: optional("-mco-deployment.yaml", yaml),
    alerts: optional("-alerts.json", (s) => JSON.parse(readFileSync(file(s), "utf8"))),
  });
  return { inputs, expected: (suffix: string) => readFileSync(file(suffix), "utf8") };
}

describe("oc adm upgrade status golden fixtures", () => {
  it("finds the fixture cases", () => {
    expect(cases.length).toBeGreaterThanOrEqual(9);
  });

  describe.each(cases)("%s", (name) => {
    const { inputs, expected } = loadCase(name);
    const evaluation = evaluate(inputs, { now: fixtureNow(inputs.clusterVersion, inputs.clusterOperators), wallClock: wallClockNow() });
    it("--details=none matches .output", () => {
      expect(render(evaluation, "none")).toBe(expected(".output"));
    });
    it("--details=all matches .detailed-output", () => {
      expect(render(evaluation, "all")).toBe(expected(".detailed-output"));
    });
    it("node insights give back every table row (spec §13.6)", () => {
      const pools = [...(evaluation.masterPool ? [evaluation.masterPool] : []), ...evaluation.workerPools];
      for (const record of pools.flatMap((p) => p.nodes)) {
        const insight = toNodeStatusInsight(record, evaluation.now);
        expect(rowFromInsight(insight)).toEqual({ assessment: record.assessment, phase: record.phase, estimate: record.estimate });
        expect(Array.from(insight.message ?? "").length).toBeLessThanOrEqual(MESSAGE_LIMIT);
      }
    });
  });
});
