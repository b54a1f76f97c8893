import { SkewReport } from "@lockstep/contracts";
import { describe, expect, it } from "vitest";
import { dueFacts, type LastFacts } from "./facts.js";
import { evaluateSkew, toSkewReport } from "@lockstep/skew-rules";
import { clusterVersion, configs, infrastructure, node, pool, settings } from "@lockstep/skew-rules/fixtures";

const mcs = configs({ "rendered-master-new": "4.16.2", "rendered-worker-old": "4.15.9", "rendered-worker-new": "4.16.2" });
const master = pool("master", { machines: 1 });
const masterNode = node("m1", "master", "rendered-master-new");

const lagging = evaluateSkew({
  clusterVersion: clusterVersion("4.16.2", ["4.16.2:Completed", "4.15.9:Completed"]),
  infrastructure: infrastructure("OpenStack"),
  pools: [master, pool("worker", { current: "rendered-worker-old", target: "rendered-worker-new", paused: true, machines: 1, updated: 0 })],
  nodes: [masterNode, node("w1", "worker", "rendered-worker-old")],
  machineConfigs: mcs,
  bootImagePolicy: undefined,
  settings: settings(),
});
const complete = evaluateSkew({
  clusterVersion: clusterVersion("4.16.2", ["4.16.2:Completed", "4.15.9:Completed"]),
  infrastructure: infrastructure("OpenStack"),
  pools: [master, pool("worker", { current: "rendered-worker-new", machines: 1 })],
  nodes: [masterNode, node("w1", "worker", "rendered-worker-new")],
  machineConfigs: mcs,
  bootImagePolicy: undefined,
  settings: settings(),
});

const kinds = (last: LastFacts, e = complete) => dueFacts(last, e).map((f) => f.kind);

describe("dueFacts", () => {
  it("publishes everything on an empty stream, update.completed only for a complete update", () => {
    expect(kinds({}, lagging)).toEqual(["skewEvaluated", "upgradeableChanged"]);
    expect(kinds({})).toEqual(["skewEvaluated", "upgradeableChanged", "updateCompleted"]);
  });

  it("publishes nothing when the stream already holds the same facts", () => {
    // A report read back from the stream (decoded wire form) compares equal to a fresh one.
    const stored = SkewReport.decode(SkewReport.encode(toSkewReport(complete)).finish());
    const last: LastFacts = {
      skewEvaluated: { seq: 7, report: stored },
      upgradeableChanged: { seq: 8, upgradeable: true, reason: "AsExpected" },
      updateCompleted: { seq: 9, version: "4.16.2" },
    };
    expect(dueFacts(last, complete)).toEqual([]);
  });

  it("announces upgradeable.changed on a new status or reason, not on a message change", () => {
    const last: LastFacts = { skewEvaluated: { seq: 1, report: toSkewReport(lagging) }, upgradeableChanged: { seq: 2, upgradeable: false, reason: "PausedPoolLagging" } };
    expect(kinds(last, lagging)).toEqual([]);
    expect(kinds({ ...last, upgradeableChanged: { seq: 2, upgradeable: false, reason: "PoolUpdating" } }, lagging)).toEqual(["upgradeableChanged"]);
  });

  it("publishes update.completed once per version, with an id that de-duplicates", () => {
    const facts = dueFacts({ updateCompleted: { seq: 3, version: "4.15.9" } }, complete);
    const completed = facts.find((f) => f.kind === "updateCompleted");
    expect(completed).toEqual({ kind: "updateCompleted", id: "update.completed/4.16.2", message: { version: "4.16.2", pools: ["master", "worker"], nodes: 2 } });
    expect(kinds({ updateCompleted: { seq: 4, version: "4.16.2" } })).not.toContain("updateCompleted");
  });

  it("derives ids from the previous fact so two replicas publish the same id", () => {
    const last: LastFacts = { skewEvaluated: { seq: 41, report: toSkewReport(lagging) }, upgradeableChanged: { seq: 42, upgradeable: false, reason: "PausedPoolLagging" } };
    const a = dueFacts(last, complete);
    const b = dueFacts(structuredClone(last), complete);
    expect(a.map((f) => f.id)).toEqual(b.map((f) => f.id));
    expect(a.find((f) => f.kind === "upgradeableChanged")?.id).toBe("upgradeable.changed/42/true/AsExpected");
    expect(a.find((f) => f.kind === "skewEvaluated")?.id).toMatch(/^skew\.evaluated\/41\/[0-9a-f]{16}$/);
  });
});
