// The writer's mode as a Lockstep insight, so `lockstep status` says when Lockstep is not writing
// the Update Status API and why. Pure.
import { type HealthInsight, ZERO_TIME } from "@lockstep/insights";
import type { ModeDecision } from "./stand-back.js";
import { UPDATE_GROUP } from "@lockstep/contracts";

const REFERENCE = "https://github.com/openshift/api/pull/2233";

export function modeInsights(decision: ModeDecision, crds: readonly string[]): HealthInsight[] {
  if (decision.mode === "writing") return [];
  const resources = crds.map((name) => ({ kind: "CustomResourceDefinition", group: "apiextensions.k8s.io", name }));
  if (decision.mode === "standing-back") {
    return [
      {
        startedAt: ZERO_TIME,
        scopeType: "Cluster",
        resources,
        level: "Info",
        impact: "None",
        summary: `Lockstep stands back from the Update Status API (${UPDATE_GROUP}): the cluster's own controller owns it`,
        description: decision.detail,
        reference: REFERENCE,
      },
    ];
  }
  return [
    {
      startedAt: ZERO_TIME,
      scopeType: "Cluster",
      resources,
      level: "Warning",
      impact: "None",
      summary: `Lockstep cannot publish the Update Status API (${UPDATE_GROUP}): its CRDs are missing`,
      description: decision.detail,
      reference: REFERENCE,
    },
  ];
}
