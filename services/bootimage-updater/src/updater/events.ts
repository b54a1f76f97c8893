// Which bootimage.* events a finished pass publishes, with deterministic ids (MachineSet + target
// image, or + a digest of the reason) so that a restarted updater repeating a fact is de-duplicated
// by the event stream. Skips and failures are published when a MachineSet's outcome changes.

import { createHash } from "node:crypto";
import type { ObjectRef } from "@lockstep/contracts";
import type { MachineSetDecision } from "../bootimages/index.js";

export type EventKind = "updated" | "skipped" | "failed";

export interface PlannedEvent {
  readonly kind: EventKind;
  readonly id: string;
  /** The object the fact is about (a MachineSet, or the object a controller-level problem names). */
  readonly object: ObjectRef;
  readonly machineSet?: ObjectRef | undefined;
  readonly platform: string;
  readonly previousImage: string;
  readonly image: string;
  /** Skip reason or error text. */
  readonly text: string;
}

export interface ControllerProblem {
  readonly object: ObjectRef;
  readonly error: string;
}

const digest = (s: string) => createHash("sha256").update(s).digest("hex").slice(0, 16);

export function machineSetRef(namespace: string, name: string): ObjectRef {
  return { group: "machine.openshift.io", version: "v1beta1", kind: "MachineSet", namespace, name, uid: "" };
}

export function eventId(kind: EventKind, object: ObjectRef, discriminator: string): string {
  return `bootimage.${kind}.${object.kind}.${object.namespace}.${object.name}.${discriminator}`;
}

/** The event for a MachineSet whose providerSpec was just patched. */
export function updatedEvent(d: MachineSetDecision): PlannedEvent {
  const ref = machineSetRef(d.namespace, d.name);
  return { kind: "updated", id: eventId("updated", ref, d.targetImage ?? ""), object: ref, machineSet: ref, platform: d.platform, previousImage: d.currentImage ?? "", image: d.targetImage ?? "", text: "" };
}

/** Signature of a decision's outcome: an event is due when it changes. */
export function outcomeSignature(d: MachineSetDecision): string {
  return `${d.action}|${d.targetImage ?? ""}|${d.reason}`;
}

/**
 * Skip and failure events for a pass. `seen` maps an object key to the signature last published
 * for it; the returned map replaces it (objects no longer reported are forgotten).
 */
export function outcomeEvents(
  decisions: readonly MachineSetDecision[],
  problems: readonly ControllerProblem[],
  seen: ReadonlyMap<string, string>,
): { events: PlannedEvent[]; seen: Map<string, string> } {
  const next = new Map<string, string>();
  const events: PlannedEvent[] = [];
  for (const d of decisions) {
    if (d.action !== "skip" && d.action !== "error") continue;
    const ref = machineSetRef(d.namespace, d.name);
    const key = `${d.namespace}/${d.name}`;
    const sig = outcomeSignature(d);
    next.set(key, sig);
    if (seen.get(key) === sig) continue;
    const kind: EventKind = d.action === "skip" ? "skipped" : "failed";
    events.push({ kind, id: eventId(kind, ref, `${d.targetImage ?? ""}.${digest(d.reason)}`), object: ref, machineSet: ref, platform: d.platform, previousImage: d.currentImage ?? "", image: d.targetImage ?? "", text: d.reason });
  }
  for (const p of problems) {
    const key = `${p.object.kind}/${p.object.namespace}/${p.object.name}`;
    next.set(key, p.error);
    if (seen.get(key) === p.error) continue;
    events.push({ kind: "failed", id: eventId("failed", p.object, digest(p.error)), object: p.object, platform: "", previousImage: "", image: "", text: p.error });
  }
  return { events, seen: next };
}
