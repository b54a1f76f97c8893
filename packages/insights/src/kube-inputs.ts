// Builds StatusInputs from parsed Kubernetes documents (YAML/JSON already decoded), as the
// offline fixtures and `oc get -o yaml` produce them: a bare object, a typed list or a `v1 List`.
import type { AlertsResponse, ClusterOperator, ClusterVersion, MachineConfig, MachineConfigPool, Node, StatusInputs } from "./types.js";

export class InputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "InputError";
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The items of a list document, or the document itself; null/undefined gives no items. */
export function listItems(doc: unknown, what: string): Record<string, unknown>[] {
  if (doc === null || doc === undefined) return [];
  if (!isObject(doc)) throw new InputError(`${what}: expected a Kubernetes object or list, got ${Array.isArray(doc) ? "an array" : typeof doc}`);
  const raw = Array.isArray(doc.items) ? doc.items : doc.kind === "List" || String(doc.kind ?? "").endsWith("List") ? [] : [doc];
  return raw.map((item, i) => {
    if (!isObject(item)) throw new InputError(`${what}: item ${i} is not an object`);
    const meta = item.metadata;
    if (!isObject(meta) || typeof meta.name !== "string") throw new InputError(`${what}: item ${i} has no metadata.name`);
    return item;
  });
}

/** Image of the machine-config-operator container of the MCO deployment, "" when absent. */
export function mcoImageFromDeployment(doc: unknown): string {
  const [deployment] = listItems(doc, "machine-config-operator deployment");
  const spec = deployment?.spec;
  const template = isObject(spec) ? spec.template : undefined;
  const podSpec = isObject(template) ? template.spec : undefined;
  const containers = isObject(podSpec) && Array.isArray(podSpec.containers) ? podSpec.containers : [];
  for (const c of containers) {
    if (isObject(c) && c.name === "machine-config-operator" && typeof c.image === "string") return c.image;
  }
  return "";
}

export interface KubeDocuments {
  clusterVersion: unknown;
  clusterOperators: unknown;
  machineConfigPools: unknown;
  machineConfigs: unknown;
  nodes: unknown;
  /** Undefined when the deployment is unknown: the MCO image is then "". */
  mcoDeployment?: unknown;
  /** Undefined when alerts are unavailable. */
  alerts?: unknown;
}

export function inputsFromDocuments(docs: KubeDocuments): StatusInputs {
  const [cv] = listItems(docs.clusterVersion, "ClusterVersion");
  let alerts: AlertsResponse | undefined;
  if (docs.alerts !== undefined) {
    // Unusable alert data counts as "no alerts" (Lockstep decision, spec §11.9).
    alerts = isObject(docs.alerts) ? (docs.alerts as AlertsResponse) : {};
  }
  return {
    clusterVersion: cv as unknown as ClusterVersion | undefined,
    clusterOperators: listItems(docs.clusterOperators, "ClusterOperators") as unknown as ClusterOperator[],
    pools: listItems(docs.machineConfigPools, "MachineConfigPools") as unknown as MachineConfigPool[],
    machineConfigs: listItems(docs.machineConfigs, "MachineConfigs") as unknown as MachineConfig[],
    nodes: listItems(docs.nodes, "Nodes") as unknown as Node[],
    mcoImage: docs.mcoDeployment === undefined ? "" : mcoImageFromDeployment(docs.mcoDeployment),
    alerts,
  };
}
