// The lease adapters as a controller of the coordinator's consumer (the skeleton's controller.ts):
// the leader records other disruptors' node signals as leases. Two keys on one queue, never run at
// once: `changes` (a signal or lease changed; a burst folds into one pass within CHANGE_DELAY_MS)
// and `all` (after sync, once fresh, on a new term, at each resync: a full look at every lease).
import type { StateProjections } from "@lockstep/bus";
import type { LeaseState } from "@lockstep/contracts";
import type { Controller } from "@lockstep/skeleton";
import type { AdapterReconciler } from "./reconciler.js";

/** A burst of hundreds of grants a second makes a few passes, not one each. */
export const CHANGE_DELAY_MS = 250;

const CHANGES = "changes";
const ALL = "all";

export function adaptersController<P extends StateProjections>(adapters: AdapterReconciler, o: { resyncMs?: number }): Controller<P> {
  return {
    name: "lease-adapters",
    kinds: ["nodeSignal", "lease"],
    leaderOnly: true,
    delayMs: CHANGE_DELAY_MS,
    resyncMs: o.resyncMs ?? 10_000,
    keysFor(change) {
      // A refused adapted lease may be recordable now; a changed adapter lease needs a full look.
      if (change.parsed.kind === "lease") adapters.leaseChanged(change.op === "put" ? (change.value as LeaseState).holderIdentity : undefined);
      return [CHANGES];
    },
    allKeys: () => [ALL],
    async reconcile(key) {
      if (key === ALL) adapters.lookAgain();
      await adapters.pass();
    },
  };
}
