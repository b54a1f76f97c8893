import { describe, expect, it } from "vitest";
import { AUTOSCALER_LABELS_ANNOTATION as A, determineArchitecture, streamArchOf, type GoArch } from "./architecture.js";

describe("streamArchOf", () => {
  it.each([
    ["amd64", "x86_64"],
    ["arm64", "aarch64"],
    ["s390x", "s390x"],
    ["ppc64le", "ppc64le"],
  ] as const)("%s → %s", (go, rpm) => expect(streamArchOf(go as GoArch)).toBe(rpm));
});

describe("determineArchitecture", () => {
  const cases = [
    { name: "arch entry alone", ann: { [A]: "kubernetes.io/arch=arm64" }, cluster: "", want: { kind: "arch", streamArch: "aarch64", goArch: "arm64", source: "annotation" } },
    {
      name: "arch among other labels, with spaces",
      ann: { [A]: "kubernetes.io/os=linux, kubernetes.io/arch=amd64,node.kubernetes.io/instance-type=m6i.xlarge" },
      cluster: "Multi",
      want: { kind: "arch", streamArch: "x86_64", goArch: "amd64", source: "annotation" },
    },
    { name: "s390x unchanged", ann: { [A]: "kubernetes.io/arch=s390x" }, cluster: "", want: { kind: "arch", streamArch: "s390x" } },
    { name: "ppc64le unchanged", ann: { [A]: "kubernetes.io/arch=ppc64le" }, cluster: "", want: { kind: "arch", streamArch: "ppc64le" } },
    {
      name: "annotation without arch entry is an error",
      ann: { [A]: "kubernetes.io/os=linux" },
      cluster: "",
      want: { kind: "error", message: "kubernetes.io/arch label not found in annotation: kubernetes.io/os=linux" },
    },
    { name: "unknown arch value is an error", ann: { [A]: "kubernetes.io/arch=x86_64" }, cluster: "", want: { kind: "error", message: "invalid architecture value found in annotation" } },
    { name: "empty arch value is an error", ann: { [A]: "kubernetes.io/arch=" }, cluster: "", want: { kind: "error", message: "invalid architecture value found in annotation" } },
    { name: "absent on a single-arch cluster: controller arch", ann: {}, cluster: "", want: { kind: "arch", goArch: "ppc64le", streamArch: "ppc64le", source: "controller" } },
    { name: "absent on a multi-arch cluster: skip", ann: { other: "x" }, cluster: "Multi", want: { kind: "skip" } },
  ] as const;
  it.each(cases)("$name", ({ ann, cluster, want }) => {
    expect(determineArchitecture(ann, cluster, "ppc64le")).toMatchObject(want);
  });
  it("skip reason names the annotation", () => {
    const r = determineArchitecture({}, "Multi", "amd64");
    expect(r.kind === "skip" && r.reason).toContain(A);
  });
});
