// Type tests (checked by `tsc -p tsconfig.test.json`, so by the typecheck): a rule's input type is
// picked from its declaration, and a read of anything else fails to compile. Each @ts-expect-error
// below fails the typecheck if the line it covers ever compiles.
import { MachineConfigState, NodeState } from "@lockstep/contracts";
import { describe, expect, expectTypeOf, it } from "vitest";
import type { TallyNode } from "./node-tally.js";
import type { MachineConfigLookup, MembershipNode } from "./pools.js";
import type { NodeOf } from "./reads.js";
import { skewMachineConfigOf, skewNodeOf, type SkewNode } from "./rule-inputs.js";

describe("what a skew rule reads", () => {
  it("is its declaration's fields: anything else does not compile", () => {
    const membership = (n: MembershipNode) => {
      // @ts-expect-error primaryPoolOf declares labels only, not the MCO annotations
      return [n.labels, n.mco];
    };
    const tally = (n: TallyNode) => {
      // @ts-expect-error the tally declares state, currentConfig and desiredConfig, not reason
      return [n.mco?.state, n.mco?.reason];
    };
    const release = (configs: MachineConfigLookup) => {
      // @ts-expect-error releaseOf declares releaseImageVersion only
      return [configs.get("x")?.releaseImageVersion, configs.get("x")?.osImageUrl];
    };
    expectTypeOf<NodeOf<{ node: { mco: ["state"] } }>>().toEqualTypeOf<{ readonly name: string } & { readonly mco?: Readonly<Pick<NodeState["mco"] & object, "state">> | undefined }>();
    expect([membership, tally, release].every((f) => typeof f === "function")).toBe(true);
  });

  it("the projections keep every declared field and drop the rest", () => {
    const n = NodeState.fromPartial({ name: "a", uid: "u", labels: { x: "y" }, mco: { state: "Done", currentConfig: "c", desiredConfig: "d", reason: "r" }, architecture: "amd64" });
    expect(skewNodeOf(n)).toEqual({ name: "a", labels: { x: "y" }, mco: { state: "Done", currentConfig: "c", desiredConfig: "d" } } satisfies SkewNode);
    const mc = MachineConfigState.fromPartial({ name: "rendered-1", releaseImageVersion: "4.16.1" });
    expect(skewMachineConfigOf(mc)).toEqual({ name: "rendered-1", releaseImageVersion: "4.16.1" });
  });
});
