import type { NodeSignalState } from "@lockstep/contracts";
import { describe, expect, it } from "vitest";
import { adaptedSignals, ADAPTER_NAMES, planAdapters, type AdaptedSignal, type AdapterName, type CurrentHold } from "./plan.js";

const NOW = Date.parse("2026-11-25T12:00:00Z");
const ALL = new Set<AdapterName>(ADAPTER_NAMES);

const state = (kind: string, namespace: string, name: string, ...signals: Array<Partial<NodeSignalState["signals"][number]>>): NodeSignalState => ({
  source: { group: "g", version: "v", kind, namespace, name, uid: "" },
  signals: signals.map((s) => ({ node: "w1", operation: "Maintenance", since: undefined, expires: undefined, description: "", ...s })),
});

describe("adaptedSignals", () => {
  it.each([
    ["NodeMaintenance", "", "nm-1", "Maintenance", "adapter:nodemaintenance/nm-1"],
    ["SelfNodeRemediation", "medik8s", "w1", "Fence", "adapter:selfnoderemediation/medik8s/w1"],
    ["FenceAgentsRemediation", "medik8s", "w1", "Fence", "adapter:fenceagentsremediation/medik8s/w1"],
    ["DaemonSet", "kube-system", "kured", "Reboot", "adapter:kured/w1"],
    ["Machine", "openshift-machine-api", "m-1", "Deprovision", "adapter:machine/openshift-machine-api/m-1"],
    ["Node", "", "w1", "Update", "adapter:machineconfig/w1"],
  ])("a %s signal is held by a holder naming its source", (kind, ns, name, operation, holder) => {
    const { signals, problems } = adaptedSignals([state(kind, ns, name, { operation, description: "why" })], NOW, ALL);
    expect(problems).toEqual([]);
    expect(signals).toEqual([{ holder, node: "w1", operation, reason: "why", source: `${kind} ${ns ? `${ns}/` : ""}${name}` }]);
  });

  it("kured's one DaemonSet yields one holder per locked node", () => {
    const { signals } = adaptedSignals([state("DaemonSet", "kube-system", "kured", { node: "w1", operation: "Reboot" }, { node: "w2", operation: "Reboot" })], NOW, ALL);
    expect(signals.map((s) => s.holder)).toEqual(["adapter:kured/w1", "adapter:kured/w2"]);
  });

  it("leaves out lapsed signals (kured's TTL), disabled adapters and unknown kinds", () => {
    const states = [
      state("DaemonSet", "kube-system", "kured", { node: "w1", operation: "Reboot", expires: new Date(NOW) }, { node: "w2", operation: "Reboot", expires: new Date(NOW + 1) }),
      state("Node", "", "w3", { node: "w3", operation: "Update" }),
      state("Unknown", "", "x"),
    ];
    const { signals } = adaptedSignals(states, NOW, new Set<AdapterName>(["kured"]));
    expect(signals.map((s) => s.node)).toEqual(["w2"]);
  });

  it("lists, without throwing, what it cannot adapt", () => {
    const { signals, problems } = adaptedSignals([state("NodeMaintenance", "", "nm-1", { operation: "Nap" }, { node: "", operation: "Maintenance" })], NOW, ALL);
    expect(signals).toEqual([]);
    expect(problems).toEqual([
      { source: "NodeMaintenance nm-1", problem: 'unknown operation "Nap"' },
      { source: "NodeMaintenance nm-1", problem: "no node" },
    ]);
  });
});

const sig = (holder: string, node = "w1", operation: AdaptedSignal["operation"] = "Maintenance"): AdaptedSignal => ({ holder, node, operation, reason: "", source: holder });
const hold = (holder: string, node = "w1", operation: CurrentHold["operation"] = "Maintenance", expiresInSeconds = 100): CurrentHold => ({ node, holder, operation, expiresInSeconds });
const plan = (signals: AdaptedSignal[], holds: CurrentHold[]) => planAdapters({ signals, holds, renewBeforeSeconds: 60 });

describe("planAdapters", () => {
  it.each<[string, AdaptedSignal[], CurrentHold[], unknown[]]>([
    ["a free node is acquired", [sig("adapter:nodemaintenance/nm-1")], [], [{ kind: "acquire", signal: sig("adapter:nodemaintenance/nm-1") }]],
    ["its own hold with time left is left alone", [sig("adapter:nodemaintenance/nm-1")], [hold("adapter:nodemaintenance/nm-1")], []],
    ["its own hold running out is renewed", [sig("adapter:nodemaintenance/nm-1")], [hold("adapter:nodemaintenance/nm-1", "w1", "Maintenance", 59)], [{ kind: "renew", signal: sig("adapter:nodemaintenance/nm-1") }]],
    [
      "another holder for the same operation covers it (NMO's own medik8s Lease, an MCO asking Lockstep itself)",
      [sig("adapter:machineconfig/w1", "w1", "Update")],
      [hold("machine-config-controller", "w1", "Update")],
      [{ kind: "covered", signal: sig("adapter:machineconfig/w1", "w1", "Update"), by: "machine-config-controller" }],
    ],
    [
      "another holder for another operation: asked anyway (the coordinator refuses, the edge warns)",
      [sig("adapter:nodemaintenance/nm-1")],
      [hold("machine-config-controller", "w1", "Update")],
      [{ kind: "acquire", signal: sig("adapter:nodemaintenance/nm-1") }],
    ],
    ["an adapter lease without its signal is released", [], [hold("adapter:kured/w1", "w1", "Reboot")], [{ kind: "release", node: "w1", holder: "adapter:kured/w1" }]],
    [
      "a node passing from one disruptor to another: released first, then acquired",
      [sig("adapter:selfnoderemediation/m/w1", "w1", "Fence")],
      [hold("adapter:nodemaintenance/nm-1")],
      [
        { kind: "release", node: "w1", holder: "adapter:nodemaintenance/nm-1" },
        { kind: "acquire", signal: sig("adapter:selfnoderemediation/m/w1", "w1", "Fence") },
      ],
    ],
    [
      "a same-operation adapter hold that is going away covers nothing",
      [sig("adapter:nodemaintenance/nm-2")],
      [hold("adapter:nodemaintenance/nm-1")],
      [
        { kind: "release", node: "w1", holder: "adapter:nodemaintenance/nm-1" },
        { kind: "acquire", signal: sig("adapter:nodemaintenance/nm-2") },
      ],
    ],
    ["holds of others are never released", [], [hold("alice"), hold("kubeadm-ops", "w2")], []],
    [
      "the disruptor's own Lease appearing beside ours (NMO's medik8s Lease) covers it: ours is released",
      [sig("adapter:nodemaintenance/nm-1")],
      [hold("adapter:nodemaintenance/nm-1"), hold("node-maintenance")],
      [
        { kind: "release", node: "w1", holder: "adapter:nodemaintenance/nm-1" },
        { kind: "covered", signal: sig("adapter:nodemaintenance/nm-1"), by: "node-maintenance" },
      ],
    ],
    [
      "a foreign hold for another operation beside ours: ours is kept and renewed (the coordinator judges the conflict)",
      [sig("adapter:nodemaintenance/nm-1")],
      [hold("adapter:nodemaintenance/nm-1", "w1", "Maintenance", 10), hold("NodeHealthCheck-x", "w1", "Fence")],
      [{ kind: "renew", signal: sig("adapter:nodemaintenance/nm-1") }],
    ],
    [
      "two remediators of one node: the one holding it covers the other",
      [sig("adapter:selfnoderemediation/m/w1", "w1", "Fence"), sig("adapter:fenceagentsremediation/m/w1", "w1", "Fence")],
      [hold("adapter:selfnoderemediation/m/w1", "w1", "Fence")],
      [{ kind: "covered", signal: sig("adapter:fenceagentsremediation/m/w1", "w1", "Fence"), by: "adapter:selfnoderemediation/m/w1" }],
    ],
  ])("%s", (_what, signals, holds, actions) => {
    expect(plan(signals, holds)).toEqual(actions);
  });
});
