// Type tests (checked by `tsc -p tsconfig.test.json`, so by the typecheck): a status rule's input
// types are picked from its declaration, and a read of anything else fails to compile. Each expected
// error below fails the typecheck if the line it covers ever compiles.
import { describe, expect, it } from "vitest";
import { CURRENT_CONFIG, LAYERING_ENABLED_LABEL, MCD_REASON, POOL_OS_IMAGE, RELEASE_IMAGE_VERSION } from "./annotations.js";
import type { AssignmentNode, AssignmentPool } from "./assign-pools.js";
import { assessAvailability, type AvailabilityNode, type AvailabilityPool } from "./node-availability.js";
import type { StatusMachineConfig, StatusNode, StatusPool } from "./node-status.js";
import { hasKey } from "./reads.js";
import type { MachineConfigPool, Node } from "./types.js";

describe("what a status rule reads", () => {
  it("is its declaration's keys and fields: anything else does not compile", () => {
    const availability = (n: AvailabilityNode, p: AvailabilityPool) => [
      n.metadata.annotations?.[CURRENT_CONFIG],
      // @ts-expect-error assessAvailability does not declare the MCD reason annotation
      n.metadata.annotations?.[MCD_REASON],
      // @ts-expect-error nor a node's labels
      n.metadata.labels,
      p.metadata.annotations?.[POOL_OS_IMAGE],
      // @ts-expect-error nor a pool's spec
      p.spec?.paused,
    ];
    const status = (n: StatusNode, p: StatusPool, mc: StatusMachineConfig) => [
      n.metadata.annotations?.[MCD_REASON],
      p.spec?.paused,
      p.spec?.configuration?.name,
      mc.metadata.annotations?.[RELEASE_IMAGE_VERSION],
      // @ts-expect-error evaluateNode does not declare a pool's selector
      p.spec?.nodeSelector,
      // @ts-expect-error nor a MachineConfig's other annotations
      mc.metadata.annotations?.[CURRENT_CONFIG],
    ];
    const assignment = (n: AssignmentNode, p: AssignmentPool) => [
      n.metadata.labels,
      p.spec?.nodeSelector,
      // @ts-expect-error whichPool does not declare annotations
      n.metadata.annotations,
      // @ts-expect-error nor conditions
      n.status?.conditions,
    ];
    // @ts-expect-error a key read through hasKey is checked too
    const undeclared = (p: AvailabilityPool) => hasKey(p.metadata.labels, POOL_OS_IMAGE);
    expect([availability, status, assignment, undeclared].every((f) => typeof f === "function")).toBe(true);
  });

  it("whole Kubernetes objects still fit the narrowed types", () => {
    const node: Node = { metadata: { name: "n", labels: {}, annotations: { [CURRENT_CONFIG]: "c" } }, spec: { unschedulable: true }, status: { conditions: [] } };
    const pool: MachineConfigPool = { metadata: { name: "worker", labels: { [LAYERING_ENABLED_LABEL]: "" } } };
    expect(assessAvailability(node, pool).reasons.map((r) => r.reason)).toEqual(["Node is marked unschedulable"]);
  });
});
