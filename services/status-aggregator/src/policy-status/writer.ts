// Writes each NodeDisruptionPolicy's status (Accepted / Conflicting) when it differs from what the
// object carries: the only Kubernetes write of the status-aggregator. Reads the policies from the
// state plane, reconciles one key through a work queue, merge-patches the status subresource, and
// refuses the same write a third time in a row (hot-loop guard) with a logged, actionable message.
import { closeBus, connectBus, ensureStateBucket, StateCache, type BusConnectionOptions } from "@lockstep/bus";
import type { NodeDisruptionPolicyState } from "@lockstep/contracts";
import { CustomObjectsApi, isNotFound, makeJsonApiClient, type KubeConfigLike } from "@lockstep/kube";
import { HotLoopGuard, WorkQueue, writeFingerprint } from "@lockstep/reconcile";
import type { Runnable } from "@lockstep/runtime";
import { whenLeading, type LeaderGate } from "@lockstep/skeleton";
import type { Logger } from "pino";
import { desiredPolicyStatuses } from "./desired.js";

const REF = { group: "lockstep.io", version: "v1alpha1", plural: "nodedisruptionpolicies" };
const KEY = "nodedisruptionpolicies";

export interface PolicyStatusOptions {
  kc: KubeConfigLike;
  bus: BusConnectionOptions;
  logger: Logger;
  /** Which replica writes; none: this one (one replica). */
  leader?: LeaderGate;
  now?: () => Date;
}

const rfc3339 = (d: Date | undefined) => (d ?? new Date()).toISOString().replace(/\.\d{3}Z$/, "Z");

export function policyStatusRunnable(o: PolicyStatusOptions): Runnable {
  return {
    name: "policy-status",
    // The leader writes; a replica that wins loads the (small) set of policies then.
    start: (signal) => whenLeading(o.leader, "policy-status", signal, (term) => writeWhileLeading(o, term)),
  };
}

async function writeWhileLeading(o: PolicyStatusOptions, signal: AbortSignal): Promise<void> {
  // Plain JSON (merge patches) without client-node's module graph (~70 MiB per process).
  const api = makeJsonApiClient(o.kc, CustomObjectsApi);
  const guard = new HotLoopGuard({
    onHotLoop: (err) => o.logger.error({ err: err.message }, "refusing a repeated NodeDisruptionPolicy status write"),
  });
  const nc = await connectBus(o.bus);
  const cache = new StateCache(await ensureStateBucket(nc, { replicas: o.bus.replicas }), { logger: o.logger, kinds: ["nodeDisruptionPolicy"] });
  const queue = new WorkQueue(async () => {
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
    return {};
  });
  try {
    cache.onChange((c) => {
      if (c.parsed.kind === "nodeDisruptionPolicy") queue.add(KEY);
    });
    await cache.start();
    await cache.whenSynced(signal);
    queue.add(KEY);
    await queue.run(signal);
  } finally {
    cache.stop();
    await closeBus(nc);
  }
}
