// Lockstep's own lockstep.io/v1alpha1 objects. Field names follow upstream MachineConfiguration
// (DESIGN.md): NodeDisruptionPolicy.spec = upstream spec.nodeDisruptionPolicy; BootImagePolicy.spec
// holds managedBootImages and bootImageSkewEnforcement, its status the matching *Status fields.
import type { BootImagePolicyState, DisruptionBudgetState, NodeDisruptionPolicyState, PolicyAction } from "@lockstep/contracts";
import { conditions, int64, intOrString, labelSelector, meta, requireName, str, strMap, type Obj } from "./common.js";

function actions(list: unknown): PolicyAction[] {
  if (!Array.isArray(list)) return [];
  return list.map((a: Obj) => ({ type: str(a?.type), serviceName: str(a?.reload?.serviceName ?? a?.restart?.serviceName) }));
}

export function normalizeNodeDisruptionPolicy(o: Obj): NodeDisruptionPolicyState {
  const name = requireName("NodeDisruptionPolicy", o);
  const m = meta(o);
  const spec = (o.spec ?? {}) as Obj;
  return {
    name,
    uid: str(m.uid),
    generation: int64(m.generation),
    files: (Array.isArray(spec.files) ? (spec.files as Obj[]) : []).map((f) => ({ path: str(f?.path), actions: actions(f?.actions) })),
    units: (Array.isArray(spec.units) ? (spec.units as Obj[]) : []).map((u) => ({ name: str(u?.name), actions: actions(u?.actions) })),
    sshkey: spec.sshkey ? { actions: actions(spec.sshkey.actions) } : undefined,
    sshkeyPresent: spec.sshkey !== undefined && spec.sshkey !== null,
    default: m.labels?.["lockstep.io/default"] === "true",
    conditions: conditions(o.status?.conditions),
  };
}

function machineSetManager(list: unknown): Obj | undefined {
  if (!Array.isArray(list)) return undefined;
  return (list as Obj[]).find((x) => x?.resource === "machinesets" && (x?.apiGroup ?? "machine.openshift.io") === "machine.openshift.io");
}

export function normalizeBootImagePolicy(o: Obj): BootImagePolicyState {
  const name = requireName("BootImagePolicy", o);
  const m = meta(o);
  const spec = (o.spec ?? {}) as Obj;
  const status = (o.status ?? {}) as Obj;
  const mgr = machineSetManager(spec.managedBootImages?.machineManagers);
  const statusMgr = machineSetManager(status.managedBootImagesStatus?.machineManagers);
  const skew = (spec.bootImageSkewEnforcement ?? {}) as Obj;
  const skewStatus = status.bootImageSkewEnforcementStatus as Obj | undefined;
  const recorded = (skewStatus?.automatic ?? skewStatus?.manual ?? {}) as Obj;
  return {
    name,
    uid: str(m.uid),
    resourceVersion: str(m.resourceVersion),
    generation: int64(m.generation),
    machineSetsMode: str(mgr?.selection?.mode),
    machineSetsSelector: labelSelector(mgr?.selection?.partial?.machineResourceSelector),
    skewMode: str(skew.mode),
    skewManualMode: str(skew.manual?.mode),
    skewManualOcpVersion: str(skew.manual?.ocpVersion),
    skewManualRhcosVersion: str(skew.manual?.rhcosVersion),
    skewStatus: skewStatus
      ? { mode: str(skewStatus.mode), manualMode: str(skewStatus.manual?.mode), ocpVersion: str(recorded.ocpVersion), rhcosVersion: str(recorded.rhcosVersion) }
      : undefined,
    conditions: conditions(status.conditions),
    annotations: strMap(m.annotations),
    machineSetsStatusMode: str(statusMgr?.selection?.mode),
  };
}

export function normalizeDisruptionBudget(o: Obj): DisruptionBudgetState {
  const name = requireName("DisruptionBudget", o);
  const m = meta(o);
  const spec = (o.spec ?? {}) as Obj;
  return {
    name,
    uid: str(m.uid),
    generation: int64(m.generation),
    pool: str(spec.pool),
    nodeSelector: labelSelector(spec.nodeSelector),
    maxDisrupted: intOrString(spec.maxDisrupted),
    schedules: (Array.isArray(spec.schedules) ? (spec.schedules as Obj[]) : []).map((s) => ({
      cron: str(s?.cron),
      duration: str(s?.duration),
      timeZone: str(s?.timeZone),
      maxDisrupted: intOrString(s?.maxDisrupted),
    })),
    operations: Array.isArray(spec.operations) ? (spec.operations as unknown[]).map(str) : [],
  };
}
