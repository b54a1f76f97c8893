// Which stream architecture a MachineSet boots (mco-behaviors.md §3.7.1).

import type { StreamArch } from "./stream.js";

export const AUTOSCALER_LABELS_ANNOTATION = "capacity.cluster-autoscaler.kubernetes.io/labels";
const ARCH_PREFIX = "kubernetes.io/arch=";

export type GoArch = "amd64" | "arm64" | "s390x" | "ppc64le";

const GO_TO_STREAM: Readonly<Record<GoArch, StreamArch>> = {
  amd64: "x86_64",
  arm64: "aarch64",
  s390x: "s390x",
  ppc64le: "ppc64le",
};

export function isGoArch(v: string): v is GoArch {
  return Object.hasOwn(GO_TO_STREAM, v);
}

/** Go (kubernetes.io/arch) name → stream RPM architecture name. */
export function streamArchOf(goArch: GoArch): StreamArch {
  return GO_TO_STREAM[goArch];
}

export type ArchitectureResult =
  | { kind: "arch"; goArch: GoArch; streamArch: StreamArch; source: "annotation" | "controller" }
  | { kind: "skip"; reason: string }
  | { kind: "error"; message: string };

/**
 * @param annotations the MachineSet's metadata.annotations
 * @param clusterArchitecture ClusterVersion status.desired.architecture ("Multi" on multi-arch clusters)
 * @param controllerArch the architecture the updater assumes for single-arch clusters (its own, upstream)
 */
export function determineArchitecture(
  annotations: Readonly<Record<string, string>>,
  clusterArchitecture: string,
  controllerArch: GoArch,
): ArchitectureResult {
  const annotation = Object.hasOwn(annotations, AUTOSCALER_LABELS_ANNOTATION) ? annotations[AUTOSCALER_LABELS_ANNOTATION] : undefined;
  if (annotation === undefined) {
    if (clusterArchitecture === "Multi") {
      return {
        kind: "skip",
        reason: `architecture cannot be determined on a multi-architecture cluster: annotation ${AUTOSCALER_LABELS_ANNOTATION} is missing`,
      };
    }
    return { kind: "arch", goArch: controllerArch, streamArch: streamArchOf(controllerArch), source: "controller" };
  }
  const entry = annotation
    .split(",")
    .map((s) => s.trim())
    .find((s) => s.startsWith(ARCH_PREFIX));
  if (entry === undefined) {
    return { kind: "error", message: `kubernetes.io/arch label not found in annotation: ${annotation}` };
  }
  const value = entry.slice(ARCH_PREFIX.length);
  if (!isGoArch(value)) return { kind: "error", message: "invalid architecture value found in annotation" };
  return { kind: "arch", goArch: value, streamArch: streamArchOf(value), source: "annotation" };
}
