import type { BootImagesState, MachineSetState, PodDisruptionBudgetState } from "@lockstep/contracts";
import { int, intOrString, labelSelector, meta, ownerRefs, requireName, str, strMap, type Obj } from "./common.js";

export function normalizeMachineSet(o: Obj): MachineSetState {
  const name = requireName("MachineSet", o);
  const m = meta(o);
  const template = (o.spec?.template ?? {}) as Obj;
  const providerSpec = template.spec?.providerSpec?.value;
  return {
    namespace: str(m.namespace),
    name,
    uid: str(m.uid),
    resourceVersion: str(m.resourceVersion),
    labels: strMap(m.labels),
    annotations: strMap(m.annotations),
    ownerReferences: ownerRefs(o),
    replicas: int(o.spec?.replicas),
    // Carried as text: the bootimage-updater parses it and reports a malformed one itself.
    providerSpecJson: providerSpec === undefined ? "" : JSON.stringify(providerSpec),
    providerSpecKind: str(providerSpec?.kind),
    templateLabels: strMap(template.metadata?.labels),
  };
}

export function normalizeBootImages(o: Obj): BootImagesState {
  const name = requireName("ConfigMap", o);
  const m = meta(o);
  const data = (o.data ?? {}) as Obj;
  return {
    namespace: str(m.namespace),
    name,
    resourceVersion: str(m.resourceVersion),
    streamJson: str(data.stream),
    releaseVersion: str(data.releaseVersion),
    mcoReleaseImageVersion: str(data.MCOReleaseImageVersion),
    mcoVersionHash: str(data.MCOVersionHash),
  };
}

export function normalizePodDisruptionBudget(o: Obj): PodDisruptionBudgetState {
  const name = requireName("PodDisruptionBudget", o);
  const status = (o.status ?? {}) as Obj;
  return {
    namespace: str(meta(o).namespace),
    name,
    selector: labelSelector(o.spec?.selector),
    minAvailable: intOrString(o.spec?.minAvailable),
    maxUnavailable: intOrString(o.spec?.maxUnavailable),
    currentHealthy: int(status.currentHealthy),
    desiredHealthy: int(status.desiredHealthy),
    disruptionsAllowed: int(status.disruptionsAllowed),
    expectedPods: int(status.expectedPods),
  };
}
