import { describe, expect, it } from "vitest";
import { CURRENT_CONFIG, LAYERING_ENABLED_LABEL, MCD_STATE, POOL_OS_IMAGE } from "./annotations.js";
import { NODE_AVAILABILITY_INPUTS } from "./node-availability.js";
import { NODE_STATUS_INPUTS } from "./node-status.js";
import { mergeInputs, NODE_RULE_INPUTS, nodeStateFields, poolInputsKey } from "./rule-inputs.js";
import type { MachineConfigPool } from "./types.js";

describe("rule inputs", () => {
  it("merges declarations into everything any of them reads", () => {
    const m = mergeInputs({ node: { annotations: ["a", "b"], unschedulable: true } }, { node: { annotations: ["b", "c"], conditions: ["Ready"] }, pool: { paused: true } });
    expect(m.node).toEqual({ labels: undefined, annotations: ["a", "b", "c"], conditions: ["Ready"], unschedulable: true });
    expect(m.pool?.paused).toBe(true);
    expect(m.pool?.configuration).toBeUndefined();
  });

  it("the node rules' inputs include each rule's own", () => {
    for (const d of [NODE_AVAILABILITY_INPUTS, NODE_STATUS_INPUTS]) {
      for (const a of d.node.annotations) expect(NODE_RULE_INPUTS.node?.annotations).toContain(a);
    }
    expect(NODE_RULE_INPUTS.node?.conditions).toEqual(NODE_AVAILABILITY_INPUTS.node.conditions);
    expect(NODE_RULE_INPUTS.node?.labels).toBe("all");
  });

  it("maps node annotations to the NodeState fields that carry them, and refuses one no field carries", () => {
    const f = nodeStateFields({ node: { annotations: [CURRENT_CONFIG, MCD_STATE], conditions: ["Ready"] } });
    expect(f.mco).toEqual(["currentConfig", "state"]);
    expect([...f.conditions]).toEqual(["Ready"]);
    expect([f.labels, f.unschedulable]).toEqual([false, false]);
    expect(() => nodeStateFields({ node: { annotations: ["example.com/other"] } })).toThrow(/example.com\/other is carried by no NodeState field/);
  });

  it("keys a pool by what the node rules read of it, and nothing else", () => {
    const key = poolInputsKey(NODE_RULE_INPUTS);
    const pool = (extra: { labels?: Record<string, string>; annotations?: Record<string, string>; paused?: boolean; config?: string; selector?: string } = {}): MachineConfigPool => ({
      metadata: { name: "worker", labels: { a: "b", ...extra.labels }, annotations: { ...extra.annotations } },
      spec: { paused: extra.paused ?? false, configuration: { name: extra.config ?? "rendered-1" }, nodeSelector: { matchLabels: { role: extra.selector ?? "worker" } } },
    });
    const base = key(pool());
    expect(key(pool({ labels: { other: "x" }, annotations: { other: "y" }, selector: "infra" }))).toBe(base);
    for (const changed of [pool({ paused: true }), pool({ config: "rendered-2" }), pool({ labels: { [LAYERING_ENABLED_LABEL]: "" } }), pool({ annotations: { [POOL_OS_IMAGE]: "img" } })]) {
      expect(key(changed)).not.toBe(base);
    }
  });
});
