// A direct pod deletion on a leased node (`kubectl drain --disable-eviction` deletes pods instead
// of evicting them, past PodDisruptionBudgets). Pure. Application owners delete their own pods all
// the time, so only requesters that drain for a living are refused by default; anyone else is
// warned (ADMISSION_POD_DELETE=Warn), or every requester refused (Refuse), or none judged (Ignore).
import type { AdmissionUser } from "./review.js";
import type { ActsFor, Verdict } from "./verdict.js";

export const POD_DELETE_POLICIES = ["Refuse", "Warn", "Ignore"] as const;
export type PodDeletePolicy = (typeof POD_DELETE_POLICIES)[number];

/**
 * Who deletes: the pod's own kubelet and kube-system's controllers (the garbage collector, the
 * node lifecycle controller, …) are never judged; a known disruptor (a subject of an acts-for
 * rule) is judged as a drain; anyone else may be an application owner.
 */
export type PodDeleter = "kubelet" | "controller" | "disruptor" | "other";

export function podDeleter(user: AdmissionUser, node: string, actsFor: readonly ActsFor[]): PodDeleter {
  if (user.username === `system:node:${node}`) return "kubelet";
  if (user.username.startsWith("system:serviceaccount:kube-system:")) return "controller";
  const subjects = new Set([user.username, ...user.groups.map((g) => `group:${g}`)]);
  return actsFor.some((a) => subjects.has(a.subject)) ? "disruptor" : "other";
}

export type PodDeleteVerdict = Verdict | { allowed: true; warning: string };

/** The lease verdict on a pod deletion, softened to a warning where the policy says so. */
export function podDeleteVerdict(v: Verdict, deleter: PodDeleter, policy: PodDeletePolicy): PodDeleteVerdict {
  if (v.allowed || deleter === "kubelet" || deleter === "controller" || policy === "Ignore") return v.allowed ? v : { allowed: true };
  if (policy === "Refuse" || deleter === "disruptor") return v;
  return { allowed: true, warning: `${v.held}: ${v.requester} deleted a pod on it (ADMISSION_POD_DELETE=Warn lets an application owner's delete through)` };
}
