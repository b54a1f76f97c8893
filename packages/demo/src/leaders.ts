// Who leads each service of a running environment: the holder of its election Lease
// (`lockstep-<service>` in the election namespace), matched to the replica whose POD_NAME it starts
// with (client-go's identity is the pod name, "_" and a random UUID).
import type { Replica, ServiceName } from "@lockstep/launcher";
import type { Environment } from "./environment.js";
import { ELECTION_NAMESPACE } from "./environment.js";

/** The election Lease's holder identity as kube-sim stores it ("" when released, undefined before any). */
export function electionHolder(env: Environment, service: ServiceName): string | undefined {
  const store = env.kube.store;
  const leases = store.registry.resolve("coordination.k8s.io", "v1", "leases")!;
  const lease = store.entries(leases, ELECTION_NAMESPACE).find((e) => (e.obj as { metadata: { name: string } }).metadata.name === `lockstep-${service}`);
  return (lease?.obj as { spec?: { holderIdentity?: string } } | undefined)?.spec?.holderIdentity;
}

/** The replica that leads `service` now, or undefined (no holder, or one that is not among the replicas). */
export function leaderOf(env: Environment, service: ServiceName): Replica | undefined {
  const holder = electionHolder(env, service);
  if (!holder) return undefined;
  return env.system.replicas.get(service)?.find((r) => holder.startsWith(`${r.process.name}_`));
}
