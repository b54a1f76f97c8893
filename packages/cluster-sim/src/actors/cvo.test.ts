import { describe, expect, it } from "vitest";
import { clusterVersion } from "../generate/cluster.js";
import { clusterOperator, OPERATORS } from "../generate/operators.js";
import { parseClusterSpec } from "../spec.js";
import { releaseImage, renderedName } from "../release.js";
import type { Condition, KubeObject } from "../types.js";
import { cvoStep, type CvoAction } from "./cvo.js";

const T0 = new Date("2026-01-01T00:00:00Z");
const opts = { seed: 1, timing: { operator: { duration: 60, jitter: 0 }, cvoAccept: { duration: 0, jitter: 0 } } };

function cluster(version = "4.15.3") {
  const spec = parseClusterSpec({ version });
  const cv = clusterVersion(spec, T0);
  const cos = OPERATORS.map((d) => clusterOperator(d, version, "2025-12-31T00:00:00Z"));
  const pools: KubeObject[] = ["master", "worker"].map((p) => ({ apiVersion: "x", kind: "MachineConfigPool", metadata: { name: p }, spec: { configuration: { name: renderedName(p, version) } }, status: { configuration: { name: renderedName(p, version) } } }));
  return { cv, cos, pools };
}

function withDesired(cv: KubeObject, version: string, force = false): KubeObject {
  return { ...cv, spec: { ...cv.spec, desiredUpdate: { version, image: releaseImage(version), ...(force ? { force } : {}) } } };
}

function notUpgradeable(co: KubeObject, reason: string, message: string): KubeObject {
  return { ...co, status: { ...co.status, conditions: co.status.conditions.map((c: { type: string }) => (c.type === "Upgradeable" ? { type: "Upgradeable", status: "False", reason, message } : c)) } };
}

const cvStatus = (a: CvoAction[]) => (a.find((x) => x.type === "cvStatus") as { status: any } | undefined)?.status;

describe("CVO acceptance (mco-behaviors.md §5.5)", () => {
  it("refuses a minor update while an operator is Upgradeable=False, with the precondition message", () => {
    const { cv, cos, pools } = cluster();
    const blocked = cos.map((c) => (c.metadata.name === "machine-config" ? notUpgradeable(c, "PoolUpdating", "One or more machine config pools are updating") : c));
    const r = cvoStep({ cv: withDesired(cv, "4.16.0"), operators: blocked, pools, machineConfigs: new Set() }, T0, opts);
    const st = cvStatus(r.actions);
    const ra = st.conditions.find((c: { type: string }) => c.type === "ReleaseAccepted");
    expect(ra).toMatchObject({ status: "False", reason: "PreconditionChecks" });
    expect(ra.message).toBe(
      `Preconditions failed for payload loaded version="4.16.0" image="${releaseImage("4.16.0")}": Precondition "ClusterVersionUpgradeable" failed because of "PoolUpdating": Cluster operator machine-config should not be upgraded between minor versions: One or more machine config pools are updating`,
    );
    expect(st.history[0].version).toBe("4.15.3");
  });

  it("accepts a z-stream update despite Upgradeable=False, and a forced minor one with the accepted risk", () => {
    const { cv, cos, pools } = cluster();
    const blocked = cos.map((c) => (c.metadata.name === "kube-apiserver" ? notUpgradeable(c, "R", "m") : c));
    const z = cvStatus(cvoStep({ cv: withDesired(cv, "4.15.5"), operators: blocked, pools, machineConfigs: new Set() }, T0, opts).actions);
    expect(z.history[0]).toMatchObject({ version: "4.15.5", state: "Partial" });
    expect(z.history[1]).toMatchObject({ version: "4.15.3", state: "Completed" });
    const forced = cvStatus(cvoStep({ cv: withDesired(cv, "4.16.0", true), operators: blocked, pools, machineConfigs: new Set() }, T0, opts).actions);
    expect(forced.history[0].acceptedRisks).toMatch(/^Forced through blocking failures: Precondition "ClusterVersionUpgradeable" failed because of "R"/);
  });

  it("aggregates several blockers as upstream", () => {
    const { cv, cos, pools } = cluster();
    const blocked = cos.map((c) => (["etcd", "machine-config"].includes(c.metadata.name) ? notUpgradeable(c, "X", "y") : c));
    const st = cvStatus(cvoStep({ cv: withDesired(cv, "4.16.0"), operators: blocked, pools, machineConfigs: new Set() }, T0, opts).actions);
    const up = st.conditions.find((c: { type: string }) => c.type === "Upgradeable");
    expect(up.reason).toBe("ClusterOperatorsNotUpgradeable");
    expect(up.message.split("\n")).toEqual([
      "Multiple cluster operators should not be upgraded between minor versions:",
      "* Cluster operator etcd should not be upgraded between minor versions: X: y",
      "* Cluster operator machine-config should not be upgraded between minor versions: X: y",
    ]);
  });
});

describe("CVO progress", () => {
  /** Applies actions to the in-memory objects, as the API server would. */
  function step(state: ReturnType<typeof cluster>, now: Date, mcs: Set<string>) {
    const r = cvoStep({ cv: state.cv, operators: state.cos, pools: state.pools, machineConfigs: mcs }, now, opts);
    for (const a of r.actions) {
      if (a.type === "cvStatus") state.cv = { ...state.cv, status: a.status };
      if (a.type === "coStatus") state.cos = state.cos.map((c) => (c.metadata.name === a.name ? { ...c, status: a.status } : c));
      if (a.type === "createRendered") mcs.add(renderedName(a.pool, a.version));
      if (a.type === "retargetPool") state.pools = state.pools.map((p) => (p.metadata.name === a.pool ? { ...p, spec: { configuration: { name: a.config } } } : p));
    }
    return r;
  }

  it("updates operators group by group, waits for the master pool at machine-config, then completes", () => {
    const s = cluster();
    s.cv = withDesired(s.cv, "4.15.5");
    const mcs = new Set<string>();
    let t = T0.getTime();
    step(s, new Date(t), mcs);
    const firstStarted: string[] = [];
    let guard = 0;
    while (s.cv.status.history[0].state === "Partial" && guard++ < 200) {
      const r = step(s, new Date(t), mcs);
      for (const a of r.actions) if (a.type === "coStatus" && (a.status.conditions as Condition[]).find((c) => c.type === "Progressing")?.status === "True") firstStarted.push(a.name);
      const mcoWaiting = s.pools.find((p) => p.metadata.name === "master")!.spec.configuration.name === renderedName("master", "4.15.5");
      if (mcoWaiting && guard > 100) {
        // The node controller finishes the master pool.
        s.pools = s.pools.map((p) => ({ ...p, status: { configuration: p.spec.configuration } }));
      }
      t = r.wakeAt ?? t + 60_000;
    }
    expect(s.cv.status.history[0]).toMatchObject({ version: "4.15.5", state: "Completed" });
    expect(firstStarted[0]).toBe("config-operator");
    expect(firstStarted.indexOf("etcd")).toBeLessThan(firstStarted.indexOf("kube-apiserver"));
    expect(firstStarted.indexOf("machine-config")).toBeLessThan(firstStarted.indexOf("monitoring"));
    expect(mcs).toEqual(new Set([renderedName("master", "4.15.5"), renderedName("worker", "4.15.5")]));
    expect(s.cos.every((c) => c.status.versions.find((v: { name: string }) => v.name === "operator").version === "4.15.5")).toBe(true);
    expect(s.cv.status.conditions.find((c: { type: string }) => c.type === "Progressing")).toMatchObject({ status: "False", message: "Cluster version is 4.15.5" });
  });

  it("times stages in simulated seconds against wall-clock stamps: 60 s of operator update take 1 s at 60x", () => {
    const s = cluster();
    s.cv = withDesired(s.cv, "4.15.5");
    const mcs = new Set<string>();
    const scaled = { ...opts, timeScale: 60 };
    const at = (ms: number) => cvoStep({ cv: s.cv, operators: s.cos, pools: s.pools, machineConfigs: mcs }, new Date(T0.getTime() + ms), scaled);
    const accepted = at(0).actions.find((a) => a.type === "cvStatus")!;
    s.cv = { ...s.cv, status: accepted.type === "cvStatus" ? accepted.status : undefined };
    expect(s.cv.status.history[0]).toMatchObject({ version: "4.15.5", state: "Partial", startedTime: "2026-01-01T00:00:00Z" });
    const started = at(0);
    expect(started.wakeAt).toBe(T0.getTime() + 1_000);
    for (const a of started.actions) if (a.type === "coStatus") s.cos = s.cos.map((c) => (c.metadata.name === a.name ? { ...c, status: a.status } : c));
    const finished = (ms: number) => at(ms).actions.some((a) => a.type === "coStatus" && (a.status.conditions as Condition[]).some((c) => c.type === "Available" && c.lastTransitionTime !== "2026-01-01T00:00:00Z"));
    expect(finished(999)).toBe(false);
    expect(finished(1_000)).toBe(true);
  });
});
