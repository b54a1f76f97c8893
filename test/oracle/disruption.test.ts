// The PDB status stand-in's arithmetic (pure): what the disruption controller would write.
import { describe, expect, it } from "vitest";
import { pdbStatus } from "./disruption.js";

const pod = (name: string, o: { ready?: boolean; deleting?: boolean; app?: string } = {}) => ({
  metadata: { name, labels: { app: o.app ?? "web" }, ...(o.deleting ? { deletionTimestamp: "2026-01-01T00:00:00Z" } : {}) },
  status: { phase: "Running", conditions: [{ type: "Ready", status: o.ready === false ? "False" : "True" }] },
});
const pdb = (spec: Record<string, unknown>, status?: Record<string, unknown>) => ({ metadata: { name: "web", generation: 3 }, spec: { selector: { matchLabels: { app: "web" } }, ...spec }, status });
const NOW = Date.parse("2026-01-01T00:01:00Z");

describe("pdbStatus", () => {
  it("allows maxUnavailable minus the unhealthy, counting only selected pods", () => {
    const pods = [pod("a"), pod("b"), pod("c", { ready: false }), pod("d", { app: "other" })];
    expect(pdbStatus(pdb({ maxUnavailable: 1 }), pods, NOW)).toEqual({ observedGeneration: 3, disruptedPods: {}, disruptionsAllowed: 0, currentHealthy: 2, desiredHealthy: 2, expectedPods: 3 });
    expect(pdbStatus(pdb({ maxUnavailable: 2 }), pods, NOW)).toMatchObject({ disruptionsAllowed: 1 });
  });

  it("takes minAvailable, also as a percentage rounded up", () => {
    const pods = [pod("a"), pod("b"), pod("c")];
    expect(pdbStatus(pdb({ minAvailable: 2 }), pods, NOW)).toMatchObject({ desiredHealthy: 2, disruptionsAllowed: 1 });
    expect(pdbStatus(pdb({ minAvailable: "50%" }), pods, NOW)).toMatchObject({ desiredHealthy: 2, disruptionsAllowed: 1 });
  });

  it("counts a pod just evicted (in disruptedPods) or being deleted as unhealthy; drops stale entries", () => {
    const pods = [pod("a"), pod("b"), pod("c", { deleting: true })];
    const s = pdbStatus(pdb({ maxUnavailable: 1 }, { disruptedPods: { a: "2026-01-01T00:00:30Z", c: "2026-01-01T00:00:30Z", gone: "2026-01-01T00:00:30Z" } }), pods, NOW);
    expect(s).toMatchObject({ disruptedPods: { a: "2026-01-01T00:00:30Z" }, currentHealthy: 1, disruptionsAllowed: 0 });
    const later = pdbStatus(pdb({ maxUnavailable: 1 }, { disruptedPods: { a: "2026-01-01T00:00:30Z" } }), pods, NOW + 120_000);
    expect(later).toMatchObject({ disruptedPods: {}, currentHealthy: 2 });
  });

  it("matches nothing with an empty selector (policy/v1beta1)", () => {
    expect(pdbStatus({ metadata: { name: "x" }, spec: { selector: {}, maxUnavailable: 1 } }, [pod("a")], NOW)).toMatchObject({ expectedPods: 0, disruptionsAllowed: 0 });
  });
});
