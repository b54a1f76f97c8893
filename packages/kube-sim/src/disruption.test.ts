import { describe, expect, it } from "vitest";
import { computePdbStatus } from "./disruption.js";

const pod = (name: string, ready: boolean, labels = { app: "web" }, deleting = false) => ({
  metadata: { name, namespace: "ns", labels, ...(deleting ? { deletionTimestamp: "2026-01-01T00:00:00Z" } : {}) },
  status: { phase: "Running", conditions: [{ type: "Ready", status: ready ? "True" : "False" }] },
});
const pdb = (spec: object) => ({ metadata: { name: "web", namespace: "ns", generation: 2 }, spec: { selector: { matchLabels: { app: "web" } }, ...spec } });

describe("computePdbStatus", () => {
  const pods = [pod("a", true), pod("b", true), pod("c", false), pod("d", true, { app: "db" }), pod("e", true, { app: "web" }, true)];
  it.each([
    [{ minAvailable: 1 }, { expectedPods: 4, currentHealthy: 2, desiredHealthy: 1, disruptionsAllowed: 1 }],
    [{ minAvailable: 2 }, { expectedPods: 4, currentHealthy: 2, desiredHealthy: 2, disruptionsAllowed: 0 }],
    [{ minAvailable: "50%" }, { expectedPods: 4, currentHealthy: 2, desiredHealthy: 2, disruptionsAllowed: 0 }],
    [{ maxUnavailable: 3 }, { expectedPods: 4, currentHealthy: 2, desiredHealthy: 1, disruptionsAllowed: 1 }],
    [{ maxUnavailable: "25%" }, { expectedPods: 4, currentHealthy: 2, desiredHealthy: 3, disruptionsAllowed: 0 }],
  ])("%j", (spec, want) => {
    const st = computePdbStatus(pdb(spec), pods, "2026-01-01T00:00:00Z");
    expect(st).toMatchObject({ ...want, observedGeneration: 2 });
    expect((st.conditions as any[])[0]).toMatchObject({ type: "DisruptionAllowed", status: want.disruptionsAllowed > 0 ? "True" : "False" });
  });
});
