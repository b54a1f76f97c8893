// The MCO node controller's rollout when nothing asks for a lease (the "enforced" lease mode), pure:
// which candidates one pass tries, in which order, and when a failed pass runs again. Upstream:
// openshift/machine-config-operator pkg/controller/node/node_controller.go, updateCandidateMachines
// (sorted by zone then age and cut to capacity only when there are more candidates than capacity;
// otherwise in the informer's unspecified order), setDesiredAnnotations (stops at the first node
// whose patch fails, so the nodes after it wait for the next pass) and handleErr (workqueue
// rate-limited requeue: 5 ms · 2^n for 15 tries, then dropped and added again after a minute).
import { keyedRandom } from "../rng.js";

export const RETRY_BASE_MS = 5;
export const MAX_RETRIES = 15;
export const DROPPED_REQUEUE_MS = 60_000;

/**
 * The nodes one pass sets desiredConfig on, in order. `sorted` is planPool's candidate list (zone,
 * then age). With room for all of them, upstream patches them in lister order, which is a Go map's:
 * a seeded shuffle per `passKey` stands in for it.
 */
export function passTargets<T>(sorted: readonly T[], capacity: number, seed: number, passKey: string): T[] {
  if (capacity <= 0 || sorted.length === 0) return [];
  if (capacity < sorted.length) return sorted.slice(0, capacity);
  const keyed = sorted.map((n, i) => ({ n, r: keyedRandom(seed, `${passKey}/${i}`) }));
  return keyed.sort((a, b) => a.r - b.r).map((k) => k.n);
}

/**
 * The delay before a pool whose pass failed `requeues` times in a row (0 for the first failure) is
 * synced again, in virtual ms, and the requeue count after it. After MAX_RETRIES the key is
 * forgotten (count back to 0) and added again after a minute.
 */
export function requeueAfter(requeues: number): { delayMs: number; requeues: number } {
  if (requeues < MAX_RETRIES) return { delayMs: RETRY_BASE_MS * 2 ** requeues, requeues: requeues + 1 };
  return { delayMs: DROPPED_REQUEUE_MS, requeues: 0 };
}

/** The error a failed pass reports, as setDesiredAnnotations wraps it. */
export function setDesiredError(config: string, node: string, cause: string): string {
  return `setting desired ${config} for node ${node}: ${cause}`;
}
