import { describe, expect, it } from "vitest";
import type { MachineSetDecision } from "../bootimages/index.js";
import { outcomeEvents, updatedEvent } from "./events.js";
import { configMapRef } from "./problems.js";

const d = (name: string, action: MachineSetDecision["action"], reason = "", targetImage = "ami-new"): MachineSetDecision => ({
  namespace: "openshift-machine-api",
  name,
  resourceVersion: "1",
  platform: "AWS",
  action,
  reason,
  currentImage: "ami-old",
  targetImage,
});

describe("updatedEvent", () => {
  it("has an id per MachineSet and target image, stable across restarts", () => {
    const e = updatedEvent(d("w", "patch"));
    expect(e).toMatchObject({ kind: "updated", previousImage: "ami-old", image: "ami-new", machineSet: { kind: "MachineSet", name: "w", namespace: "openshift-machine-api" } });
    expect(updatedEvent(d("w", "patch")).id).toBe(e.id);
    expect(updatedEvent(d("w", "patch", "", "ami-newer")).id).not.toBe(e.id);
    expect(updatedEvent(d("v", "patch")).id).not.toBe(e.id);
  });
});

describe("outcomeEvents", () => {
  const decisions = [d("a", "skip", "has OwnerReference (MachinePool/p), skipping boot image update", ""), d("b", "error", "providerSpec is not valid JSON"), d("c", "upToDate"), d("e", "patch")];
  const problems = [{ object: configMapRef("openshift-machine-config-operator", "coreos-bootimages"), error: "failed to fetch coreos-bootimages config map: not found" }];

  it("publishes skips, failures and controller problems once", () => {
    const first = outcomeEvents(decisions, problems, new Map());
    expect(first.events.map((e) => [e.kind, e.object.name, e.text])).toEqual([
      ["skipped", "a", "has OwnerReference (MachinePool/p), skipping boot image update"],
      ["failed", "b", "providerSpec is not valid JSON"],
      ["failed", "coreos-bootimages", "failed to fetch coreos-bootimages config map: not found"],
    ]);
    expect(new Set(first.events.map((e) => e.id)).size).toBe(3);
    expect(outcomeEvents(decisions, problems, first.seen).events).toEqual([]);
  });

  it("publishes again when an outcome changes or comes back", () => {
    const first = outcomeEvents(decisions, [], new Map());
    const changed = outcomeEvents([decisions[0]!, d("b", "error", "hot loop")], [], first.seen);
    expect(changed.events.map((e) => [e.object.name, e.text])).toEqual([["b", "hot loop"]]);
    const gone = outcomeEvents([], [], changed.seen);
    expect(outcomeEvents([decisions[0]!], [], gone.seen).events.map((e) => e.object.name)).toEqual(["a"]);
  });

  it("the same fact gets the same id (de-duplicated by the stream after a restart)", () => {
    const a = outcomeEvents(decisions, problems, new Map()).events.map((e) => e.id);
    const b = outcomeEvents(decisions, problems, new Map()).events.map((e) => e.id);
    expect(b).toEqual(a);
  });
});
