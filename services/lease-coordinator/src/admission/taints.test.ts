import { describe, expect, it } from "vitest";
import { DEFAULT_TAINT_EXEMPT_KEYS, disruptiveTaint, taintExempt } from "./taints.js";

const node = (...taints: object[]) => ({ spec: { taints } });
const t = (key: string, effect = "NoExecute", value?: string) => ({ key, effect, ...(value === undefined ? {} : { value }) });

describe("disruptiveTaint", () => {
  it.each<[string, object | undefined, object, object | undefined]>([
    ["a NoExecute taint added", node(), node(t("example.com/drain")), { key: "example.com/drain", operation: "Drain" }],
    ["a first taint on a node with no spec.taints", {}, node(t("example.com/drain")), { operation: "Drain" }],
    ["a NoSchedule taint turned NoExecute", node(t("example.com/x", "NoSchedule")), node(t("example.com/x")), { operation: "Drain" }],
    ["a NoExecute taint's value changed", node(t("example.com/x", "NoExecute", "a")), node(t("example.com/x", "NoExecute", "b")), { operation: "Drain" }],
    ["out-of-service (an admin's fencing step)", node(), node(t("node.kubernetes.io/out-of-service", "NoExecute", "nodeshutdown")), { operation: "Fence" }],
    ["out-of-service as NoSchedule", node(), node(t("node.kubernetes.io/out-of-service", "NoSchedule")), { operation: "Fence" }],
    ["a kept taint next to a new one", node(t("node.kubernetes.io/unreachable")), node(t("node.kubernetes.io/unreachable"), t("a/b")), { key: "a/b" }],
    ["nothing for the lifecycle controller's unreachable", node(), node(t("node.kubernetes.io/unreachable")), undefined],
    ["nothing for not-ready", node(), node(t("node.kubernetes.io/not-ready")), undefined],
    ["nothing for the cloud provider's shutdown", node(), node(t("node.cloudprovider.kubernetes.io/shutdown")), undefined],
    ["nothing for a NoSchedule taint", node(), node(t("example.com/x", "NoSchedule")), undefined],
    ["nothing for PreferNoSchedule", node(), node(t("example.com/x", "PreferNoSchedule")), undefined],
    ["nothing for an unchanged NoExecute taint", node(t("example.com/x")), node(t("example.com/x")), undefined],
    ["nothing for a removed taint", node(t("example.com/x")), node(), undefined],
  ])("%s", (_name, before, after, want) => {
    const got = disruptiveTaint(before, after, DEFAULT_TAINT_EXEMPT_KEYS);
    if (want === undefined) expect(got).toBeUndefined();
    else expect(got).toMatchObject(want);
  });

  it("exempts exact keys and prefixes ending in /, never out-of-service", () => {
    expect(taintExempt("example.com/a", ["example.com/"])).toBe(true);
    expect(taintExempt("example.com/a", ["example.com/b"])).toBe(false);
    expect(taintExempt("example.com", ["example.com/"])).toBe(false);
    expect(disruptiveTaint(node(), node(t("node.kubernetes.io/out-of-service")), ["node.kubernetes.io/"])).toMatchObject({ operation: "Fence" });
    expect(disruptiveTaint(node(), node(t("node.kubernetes.io/unreachable")), [])).toMatchObject({ operation: "Drain" });
  });
});
