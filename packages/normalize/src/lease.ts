import type { LeaseState } from "@lockstep/contracts";
import { int, meta, ownerRefs, requireName, str, strMap, time, type Obj } from "./common.js";

export function normalizeLease(o: Obj): LeaseState {
  const name = requireName("Lease", o);
  const m = meta(o);
  const spec = (o.spec ?? {}) as Obj;
  return {
    namespace: str(m.namespace),
    name,
    uid: str(m.uid),
    resourceVersion: str(m.resourceVersion),
    holderIdentity: str(spec.holderIdentity),
    leaseDurationSeconds: int(spec.leaseDurationSeconds),
    acquireTime: time(spec.acquireTime),
    renewTime: time(spec.renewTime),
    leaseTransitions: int(spec.leaseTransitions),
    labels: strMap(m.labels),
    annotations: strMap(m.annotations),
    ownerReferences: ownerRefs(o),
    rawRenewTime: str(spec.renewTime),
  };
}
