import { describe, expect, it } from "vitest";
import { podDeleter, podDeleteVerdict, type PodDeleter, type PodDeletePolicy } from "./pod-delete.js";
import { DEFAULT_ACTS_FOR, type Verdict } from "./verdict.js";

const user = (username: string, groups: string[] = []) => ({ username, uid: "", groups });

describe("podDeleter", () => {
  it.each<[string, string, string[], PodDeleter]>([
    ["the pod's kubelet", "system:node:w1", [], "kubelet"],
    ["the garbage collector", "system:serviceaccount:kube-system:generic-garbage-collector", [], "controller"],
    ["kured (kube-system; its evictions are judged, not here)", "system:serviceaccount:kube-system:kured", [], "controller"],
    ["the machine-config daemon", "system:serviceaccount:openshift-machine-config-operator:machine-config-daemon", [], "disruptor"],
    ["the node-maintenance operator", "system:serviceaccount:openshift-workload-availability:node-maintenance-operator-controller-manager", [], "disruptor"],
    ["another node's kubelet", "system:node:w2", [], "other"],
    ["an application owner", "dev", ["developers"], "other"],
  ])("%s", (_name, username, groups, want) => {
    expect(podDeleter(user(username, groups), "w1", DEFAULT_ACTS_FOR)).toBe(want);
  });

  it("counts a group subject of an acts-for rule as a disruptor", () => {
    expect(podDeleter(user("robot", ["drainers"]), "w1", [{ subject: "group:drainers", holders: ["ops"] }])).toBe("disruptor");
  });
});

describe("podDeleteVerdict", () => {
  const refused: Verdict = { allowed: false, message: "node w1 is leased to alice …: bob may not delete pod a/b …", held: "node w1 is leased to alice", requester: "bob" };
  const warned = { allowed: true, warning: expect.stringMatching(/^node w1 is leased to alice: bob deleted a pod on it/) };
  it.each<[PodDeleter, PodDeletePolicy, object]>([
    ["other", "Warn", warned],
    ["disruptor", "Warn", refused],
    ["other", "Refuse", refused],
    ["disruptor", "Refuse", refused],
    ["other", "Ignore", { allowed: true }],
    ["disruptor", "Ignore", { allowed: true }],
    ["kubelet", "Refuse", { allowed: true }],
    ["controller", "Refuse", { allowed: true }],
  ])("%s under %s", (deleter, policy, want) => {
    expect(podDeleteVerdict(refused, deleter, policy)).toEqual(want);
  });

  it("passes an allowed verdict (break-glass audit included) as it is", () => {
    expect(podDeleteVerdict({ allowed: true, audit: "break-glass: …" }, "other", "Refuse")).toEqual({ allowed: true, audit: "break-glass: …" });
  });
});
