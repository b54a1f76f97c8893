import { InfrastructureState } from "@lockstep/contracts";
import { describe, expect, it } from "vitest";
import { configMapRef, controllerProblems, infrastructureRef, policyRef, unknownPlatformError } from "./problems.js";
import { releaseAmis } from "./release-amis.js";
import { streamDocument } from "../bootimages/testdata/stream.js";

describe("unknownPlatformError", () => {
  it.each([
    ["AWS", undefined],
    ["BareMetal", undefined],
    ["", undefined],
    ["Aws", 'Infrastructure cluster has unknown platform type "Aws"'],
  ])("%j", (platform, want) => {
    expect(unknownPlatformError(InfrastructureState.fromPartial({ name: "cluster", platform }))).toBe(want);
  });
});

describe("controllerProblems", () => {
  const refs = { infrastructure: infrastructureRef("cluster"), policy: policyRef("cluster"), bootImages: configMapRef("openshift-machine-config-operator", "coreos-bootimages") };
  it("ties each non-MachineSet error to the object to fix", () => {
    const got = controllerProblems(
      ["error syncing MAPI MachineSet w: boom", "failed to fetch coreos-bootimages config map: not found", "invalid MachineSet selection: bad", 'Infrastructure cluster has unknown platform type "X"'],
      refs,
    );
    expect(got.map((p) => [p.object.kind, p.object.name])).toEqual([
      ["ConfigMap", "coreos-bootimages"],
      ["BootImagePolicy", "cluster"],
      ["Infrastructure", "cluster"],
    ]);
  });
});

describe("releaseAmis", () => {
  it("lists every region's AMI of every architecture", () => {
    expect(releaseAmis(JSON.stringify(streamDocument())).sort()).toEqual(["ami-0a0a1b2c3d4e5f603", "ami-0e0a1b2c3d4e5f601", "ami-0e0a1b2c3d4e5f602"].sort());
  });
  it("gives none for a malformed stream", () => {
    expect(releaseAmis("{oops")).toEqual([]);
  });
});
