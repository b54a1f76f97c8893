// Writes each NodeDisruptionPolicy's status (Accepted / Conflicting) when it differs from what the
// object carries: the only Kubernetes write of the status-aggregator. A controller of the
// aggregator's state consumer (the skeleton's controller.ts): it reads the policies from the
// consumer's cache, so it writes only from a fresh view and only on the leader; one key, a pass
// over all policies, merge-patches the status subresource and refuses the same write a third time
// in a row (hot-loop guard) with a logged, actionable message.
import type { StateProjections } from "@lockstep/bus";
import type { NodeDisruptionPolicyState } from "@lockstep/contracts";
import { CustomObjectsApi, isNotFound, makeJsonApiClient, type KubeConfigLike } from "@lockstep/kube";
import { HotLoopGuard, writeFingerprint } from "@lockstep/reconcile";
import type { Controller } from "@lockstep/skeleton";
import type { Logger } from "pino";
import { desiredPolicyStatuses } from "./desired.js";

const REF = { group: "lockstep.io", version: "v1alpha1", plural: "nodedisruptionpolicies" };

export interface PolicyStatusOptions {
  kc: KubeConfigLike;
  logger: Logger;
  now?: () => Date;
}

const rfc3339 = (d: Date | undefined) => (d ?? new Date()).toISOString().replace(/\.\d{3}Z$/, "Z");

/** Generic over the consumer's projections: it reads only policies, which are never projected. */
export function policyStatusController<P extends StateProjections = never>(o: PolicyStatusOptions): Controller<P> {
  // Plain JSON (merge patches) without client-node's module graph (~70 MiB per process).
  const api = makeJsonApiClient(o.kc, CustomObjectsApi);
  const guard = new HotLoopGuard({
    onHotLoop: (err) => o.logger.error({ err: err.message }, "refusing a repeated NodeDisruptionPolicy status write"),
  });
  return {
    name: "policy-status",
    kinds: ["nodeDisruptionPolicy"],
    leaderOnly: true,
    // One key: whether a policy is accepted depends on the others (conflicts), so a pass covers all.
    async reconcile(_key, { cache }) {
      const states = cache.list("nodeDisruptionPolicy") as NodeDisruptionPolicyState[];
      for (const d of desiredPolicyStatuses(states, (o.now ?? (() => new Date()))())) {
        if (!d.changed) {
          guard.reset(d.name);
          continue;
        }
        const status = { conditions: d.conditions.map((c) => ({ ...c, lastTransitionTime: rfc3339(c.lastTransitionTime) })) };
        if (!guard.check(d.name, writeFingerprint(status))) continue;
        try {
          await api.patchClusterCustomObjectStatus({ ...REF, name: d.name, body: { status } });
          o.logger.info({ policy: d.name, accepted: d.conditions[0]?.status }, "NodeDisruptionPolicy status written");
        } catch (err) {
          if (isNotFound(err)) continue; // deleted meanwhile: nothing to report on
          throw err; // retried with backoff
        }
      }
    },
  };
}
