import { ClusterVersionState, InfrastructureState } from "@lockstep/contracts";
import { describe, expect, it } from "vitest";
import { evaluateGates, isClusterStable } from "./gating.js";

const cv = (...states: string[]) => ClusterVersionState.fromPartial({ history: states.map((state, i) => ({ state, version: `4.2${2 - i}.0` })) });
const infra = (platform: string, azureCloudName = "") => InfrastructureState.fromPartial({ platform, azureCloudName });

describe("isClusterStable", () => {
  it.each([
    { name: "newest Completed", c: cv("Completed", "Partial"), want: true },
    { name: "newest Partial (mid-update)", c: cv("Partial", "Completed"), want: false },
    { name: "empty history", c: cv(), want: false },
    { name: "no ClusterVersion", c: undefined, want: false },
  ])("$name", ({ c, want }) => expect(isClusterStable(c)).toBe(want));
});

describe("evaluateGates", () => {
  it("runs on a supported, stable cluster", () => {
    expect(evaluateGates(infra("GCP"), cv("Completed"))).toEqual({ run: true, platform: "GCP" });
  });
  it.each([
    { name: "no Infrastructure", i: undefined, c: cv("Completed"), gate: "platform" },
    { name: "no platform status", i: infra(""), c: cv("Completed"), gate: "platform" },
    { name: "BareMetal", i: infra("BareMetal"), c: cv("Completed"), gate: "platform" },
    { name: "Azure Stack Hub", i: infra("Azure", "AzureStackCloud"), c: cv("Completed"), gate: "platform" },
    { name: "mid-update", i: infra("AWS"), c: cv("Partial", "Completed"), gate: "clusterNotStable" },
    { name: "no ClusterVersion", i: infra("AWS"), c: undefined, gate: "clusterNotStable" },
  ])("does not run: $name", ({ i, c, gate }) => {
    expect(evaluateGates(i, c)).toMatchObject({ run: false, gate });
  });
  it("the platform gate comes before stability", () => {
    expect(evaluateGates(infra("BareMetal"), cv("Partial"))).toMatchObject({ gate: "platform", message: "boot image updates are not supported on platform BareMetal" });
  });
});
