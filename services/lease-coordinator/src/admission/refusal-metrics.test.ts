import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { RequesterLabels, requesterKind, webhookRefusals, WEBHOOK_REFUSALS_METRIC } from "./refusal-metrics.js";

describe("requester labels", () => {
  it("tells ServiceAccounts, nodes and users apart", () => {
    expect(requesterKind("system:serviceaccount:openshift-machine-config-operator:machine-config-controller")).toBe("serviceaccount");
    expect(requesterKind("system:node:worker-7")).toBe("node");
    expect(requesterKind("kube:admin")).toBe("user");
  });

  it("folds node identities into one, names the first N requesters and counts later ones as other, keeping earlier names", () => {
    const l = new RequesterLabels(2);
    expect(l.of("system:node:worker-1")).toEqual({ requester_kind: "node", requester: "system:node" });
    expect(l.of("system:node:worker-2")).toEqual({ requester_kind: "node", requester: "system:node" });
    expect(l.of("system:serviceaccount:ns:sa")).toEqual({ requester_kind: "serviceaccount", requester: "system:serviceaccount:ns:sa" });
    expect(l.of("alice")).toEqual({ requester_kind: "user", requester: "alice" });
    expect(l.of("bob")).toEqual({ requester_kind: "user", requester: "other" });
    expect(l.of("system:serviceaccount:ns:other-sa")).toEqual({ requester_kind: "serviceaccount", requester: "other" });
    expect(l.of("alice")).toEqual({ requester_kind: "user", requester: "alice" });
    expect(l.of("")).toEqual({ requester_kind: "user", requester: "anonymous" });
  });
});

describe("lockstep_webhook_refusals_total", () => {
  it("counts refusals per requester and operation with a bounded label set", async () => {
    const registry = new Registry();
    const refused = webhookRefusals(registry, 1);
    refused("system:serviceaccount:mco:controller", "Update");
    refused("system:serviceaccount:mco:controller", "Update");
    refused("system:serviceaccount:mco:controller", "Drain");
    for (let i = 0; i < 50; i++) refused(`user-${i}`, "Reboot");
    for (let i = 0; i < 50; i++) refused(`system:node:n-${i}`, "Drain");
    const text = await registry.getSingleMetricAsString(WEBHOOK_REFUSALS_METRIC);
    expect(text).toContain(`${WEBHOOK_REFUSALS_METRIC}{requester_kind="serviceaccount",requester="system:serviceaccount:mco:controller",operation="Update"} 2`);
    expect(text).toContain(`${WEBHOOK_REFUSALS_METRIC}{requester_kind="serviceaccount",requester="system:serviceaccount:mco:controller",operation="Drain"} 1`);
    expect(text).toContain(`${WEBHOOK_REFUSALS_METRIC}{requester_kind="user",requester="other",operation="Reboot"} 50`);
    expect(text).toContain(`${WEBHOOK_REFUSALS_METRIC}{requester_kind="node",requester="system:node",operation="Drain"} 50`);
    expect(text.split("\n").filter((l) => l.startsWith(WEBHOOK_REFUSALS_METRIC))).toHaveLength(4);
  });
});
