// Which disruptive operation an admission request starts on which node. Pure: what needs another
// object (the node of a pod being evicted, of a Machine, of a BareMetalHost) is returned as a
// lookup for the I/O edge to answer. Annotation and field names are the upstream projects' own:
// openshift/machine-config-operator (node annotations), openshift/api machine/v1beta1 and the
// machine-api's delete-machine annotation, metal3-io/baremetal-operator (BareMetalHost).
import type { OperationName } from "@lockstep/lease-policy";
import type { PodDeletePolicy } from "./pod-delete.js";
import type { AdmissionRequest } from "./review.js";
import { DEFAULT_TAINT_EXEMPT_KEYS, disruptiveTaint } from "./taints.js";

export const DESIRED_CONFIG = "machineconfiguration.openshift.io/desiredConfig";
/** The machine-api deletes Machines carrying it first when a MachineSet scales down. */
export const DELETE_MACHINE = "machine.openshift.io/delete-machine";

/** medik8s remediation CRs, named after the node they fence (see packages/normalize's signals). */
export const REMEDIATIONS: readonly { group: string; resource: string; kind: string }[] = [
  { group: "self-node-remediation.medik8s.io", resource: "selfnoderemediations", kind: "SelfNodeRemediation" },
  { group: "fence-agents-remediation.medik8s.io", resource: "fenceagentsremediations", kind: "FenceAgentsRemediation" },
];

/**
 * A disruptive operation on a node known by name; `what` says it in words, for messages.
 * `onlyWhileHeldFor`: judged only against holds for these operations (and admin holds).
 * `podDelete`: a direct pod deletion, judged by who deletes (pod-delete.ts).
 */
export interface NodeDisruption {
  node: string;
  operation: OperationName;
  what: string;
  onlyWhileHeldFor?: readonly OperationName[];
  podDelete?: true;
}

export interface ClassifyOptions {
  taintExemptKeys: readonly string[];
  podDelete: PodDeletePolicy;
}

export const DEFAULT_CLASSIFY: ClassifyOptions = { taintExemptKeys: DEFAULT_TAINT_EXEMPT_KEYS, podDelete: "Warn" };

export type Disruption =
  | { kind: "none" }
  | ({ kind: "node" } & NodeDisruption)
  /** On the node a pod runs on (an eviction: the webhook looks the pod up). */
  | { kind: "pod"; namespace: string; pod: string; operation: OperationName; what: string }
  /** On the node of a BareMetalHost's consumer Machine, when its status does not say (looked up). */
  | { kind: "machine"; namespace: string; machine: string; operation: OperationName; what: string; onlyWhileHeldFor?: readonly OperationName[] };

const annotation = (obj: any, key: string): string | undefined => {
  const v = obj?.metadata?.annotations?.[key];
  return typeof v === "string" ? v : undefined;
};

const nodeOfMachine = (m: any): string => (typeof m?.status?.nodeRef?.name === "string" ? m.status.nodeRef.name : "");

/** The disruption `req` would start, if any. */
export function classify(req: AdmissionRequest, o: ClassifyOptions = DEFAULT_CLASSIFY): Disruption {
  const { group, resource, subResource, operation } = req;
  if (group === "" && resource === "nodes" && subResource === "") {
    if (operation === "DELETE") return { kind: "node", node: req.name, operation: "Deprovision", what: `delete node ${req.name}` };
    if (operation !== "UPDATE") return { kind: "none" };
    const before = annotation(req.oldObject, DESIRED_CONFIG);
    const after = annotation(req.object, DESIRED_CONFIG);
    if (after !== undefined && after !== before) {
      return { kind: "node", node: req.name, operation: "Update", what: `start an update of ${req.name} (${DESIRED_CONFIG} ${before ?? "unset"} → ${after})` };
    }
    const taint = disruptiveTaint(req.oldObject, req.object, o.taintExemptKeys);
    if (taint !== undefined) return { kind: "node", node: req.name, operation: taint.operation, what: `taint ${req.name} ${taint.key}:${taint.effect}` };
    if (req.object?.spec?.unschedulable === true && req.oldObject?.spec?.unschedulable !== true) {
      return { kind: "node", node: req.name, operation: "Drain", what: `cordon ${req.name}` };
    }
    return { kind: "none" };
  }
  if (group === "" && resource === "pods" && subResource === "eviction" && operation === "CREATE") {
    return { kind: "pod", namespace: req.namespace, pod: req.name, operation: "Drain", what: `evict pod ${req.namespace}/${req.name}` };
  }
  if (group === "" && resource === "pods" && subResource === "" && operation === "DELETE") {
    const node = req.oldObject?.spec?.nodeName;
    if (o.podDelete === "Ignore" || typeof node !== "string" || node === "") return { kind: "none" };
    // A terminating pod's deletion (the kubelet finishing it, a shorter grace period) was judged when it began.
    if (req.oldObject?.metadata?.deletionTimestamp) return { kind: "none" };
    return { kind: "node", node, operation: "Drain", what: `delete pod ${req.namespace}/${req.name}`, podDelete: true };
  }
  if (operation === "CREATE" && subResource === "" && REMEDIATIONS.some((r) => r.group === group && r.resource === resource) && req.name !== "") {
    // A remediation on a node under another's maintenance would reboot or power-cycle it mid-work.
    return { kind: "node", node: req.name, operation: "Fence", what: `remediate ${req.name} (${resource})`, onlyWhileHeldFor: ["Maintenance"] };
  }
  if (group === "machine.openshift.io" && resource === "machines" && subResource === "") {
    const machine = operation === "DELETE" ? req.oldObject : req.object;
    const node = nodeOfMachine(machine);
    const named = `${req.namespace}/${req.name}`;
    if (operation === "DELETE") return node ? { kind: "node", node, operation: "Deprovision", what: `delete machine ${named}` } : { kind: "none" };
    if (operation === "UPDATE" && annotation(req.object, DELETE_MACHINE) !== undefined && annotation(req.oldObject, DELETE_MACHINE) === undefined) {
      return node ? { kind: "node", node, operation: "Deprovision", what: `mark machine ${named} for deletion (${DELETE_MACHINE})` } : { kind: "none" };
    }
    return { kind: "none" };
  }
  if (group === "metal3.io" && resource === "baremetalhosts" && subResource === "" && operation === "UPDATE") {
    const online = req.object?.spec?.online;
    const wasOnline = req.oldObject?.spec?.online;
    const off = online === false && wasOnline !== false;
    // metal3 defaults spec.online to false: a host with it unset was off.
    const on = online === true && wasOnline !== true;
    if (!off && !on) return { kind: "none" };
    const consumer = req.object?.spec?.consumerRef;
    if (consumer?.kind !== "Machine" || typeof consumer.name !== "string") return { kind: "none" };
    const namespace = typeof consumer.namespace === "string" ? consumer.namespace : req.namespace;
    if (off) return { kind: "machine", namespace, machine: consumer.name, operation: "PowerOff", what: `power off bare-metal host ${req.namespace}/${req.name}` };
    // Powering on a host another powered off or maintains undoes their work; judged as the power operation it reverses.
    return { kind: "machine", namespace, machine: consumer.name, operation: "PowerOff", what: `power on bare-metal host ${req.namespace}/${req.name}`, onlyWhileHeldFor: ["PowerOff", "Maintenance"] };
  }
  return { kind: "none" };
}
