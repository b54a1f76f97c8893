// OpenAPI schemas of the built-in kinds kube-sim serves: the fields Lockstep and its chart use,
// typed as in Kubernetes 1.31, for /openapi/v2 and /openapi/v3 (kubectl explain), and for strict
// field validation (unknown fields). Parts kube-sim never looks into (pod specs, CRD specs, review
// bodies) keep unknown fields instead of spelling out their hundreds of fields.
import type { Schema } from "./types.js";

const str: Schema = { type: "string" };
const int32: Schema = { type: "integer", format: "int32" };
const int64: Schema = { type: "integer", format: "int64" };
const bool: Schema = { type: "boolean" };
const time: Schema = { type: "string", format: "date-time" };
const intOrString: Schema = { "x-kubernetes-int-or-string": true };
const open: Schema = { type: "object", "x-kubernetes-preserve-unknown-fields": true };
const strings: Schema = { type: "array", items: str };
const stringMap: Schema = { type: "object", additionalProperties: str };
const quantities: Schema = { type: "object", additionalProperties: intOrString };

function obj(properties: Record<string, Schema>, description?: string, required?: string[]): Schema {
  const s: Schema = { type: "object", properties };
  if (description) s.description = description;
  if (required) s.required = required;
  return s;
}
const arr = (items: Schema): Schema => ({ type: "array", items });
const d = (s: Schema, description: string): Schema => ({ ...s, description });

export const OBJECT_META_NAME = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";

export const objectMeta: Schema = obj(
  {
    name: d(str, "Name must be unique within a namespace."),
    generateName: d(str, "An optional prefix, used by the server to generate a unique name ONLY IF the Name field has not been provided."),
    namespace: d(str, "Namespace defines the space within which each name must be unique."),
    uid: d(str, "UID is the unique in time and space value for this object."),
    resourceVersion: d(str, "An opaque value that represents the internal version of this object."),
    generation: d(int64, "A sequence number representing a specific generation of the desired state."),
    creationTimestamp: d(time, "CreationTimestamp is a timestamp representing the server time when this object was created."),
    deletionTimestamp: d(time, "DeletionTimestamp is RFC 3339 date and time at which this resource will be deleted."),
    deletionGracePeriodSeconds: d(int64, "Number of seconds allowed for this object to gracefully terminate before it will be removed from the system."),
    labels: d(stringMap, "Map of string keys and values that can be used to organize and categorize (scope and select) objects."),
    annotations: d(stringMap, "Annotations is an unstructured key value map stored with a resource."),
    finalizers: d(strings, "Must be empty before the object is deleted from the registry."),
    ownerReferences: d(
      arr(obj({ apiVersion: str, kind: str, name: str, uid: str, controller: bool, blockOwnerDeletion: bool }, undefined, ["apiVersion", "kind", "name", "uid"])),
      "List of objects depended by this object.",
    ),
    managedFields: d(arr(open), "ManagedFields maps workflow-id and version to the set of fields that are managed by that workflow."),
    selfLink: d(str, "Deprecated: selfLink is a legacy read-only field that is no longer populated by the system."),
  },
  "ObjectMeta is metadata that all persisted resources must have, which includes all objects users must create.",
);

const labelSelector = obj({
  matchLabels: stringMap,
  matchExpressions: arr(obj({ key: str, operator: str, values: strings }, undefined, ["key", "operator"])),
});
const condition = obj({ type: str, status: str, lastHeartbeatTime: time, lastTransitionTime: time, reason: str, message: str, observedGeneration: int64 });
const policyRule = obj({ verbs: strings, apiGroups: strings, resources: strings, resourceNames: strings, nonResourceURLs: strings }, undefined, ["verbs"]);
const subject = obj({ kind: str, apiGroup: str, name: str, namespace: str }, undefined, ["kind", "name"]);
const roleRef = obj({ apiGroup: str, kind: str, name: str }, undefined, ["apiGroup", "kind", "name"]);
const openSpecStatus = { spec: open, status: open };

/** The body of each built-in kind without apiVersion/kind/metadata, keyed `group/version/Kind`. */
const BODIES: Record<string, { description: string; properties: Record<string, Schema>; required?: string[] }> = {
  "/v1/Namespace": {
    description: "Namespace provides a scope for Names.",
    properties: { spec: obj({ finalizers: strings }), status: obj({ phase: str, conditions: arr(condition) }) },
  },
  "/v1/Node": {
    description: "Node is a worker node in Kubernetes. Each node will have a unique identifier in the cache (i.e. in etcd).",
    properties: {
      spec: obj(
        {
          podCIDR: str,
          podCIDRs: strings,
          providerID: d(str, "ID of the node assigned by the cloud provider."),
          unschedulable: d(bool, "Unschedulable controls node schedulability of new pods. By default, node is schedulable."),
          taints: d(arr(obj({ key: str, value: str, effect: str, timeAdded: time }, undefined, ["key", "effect"])), "If specified, the node's taints."),
          configSource: open,
          externalID: str,
        },
        "Spec defines the behavior of a node.",
      ),
      status: obj(
        {
          capacity: quantities,
          allocatable: quantities,
          phase: str,
          conditions: arr(condition),
          addresses: arr(obj({ type: str, address: str }, undefined, ["type", "address"])),
          daemonEndpoints: open,
          nodeInfo: obj({
            machineID: str,
            systemUUID: str,
            bootID: str,
            kernelVersion: str,
            osImage: str,
            containerRuntimeVersion: str,
            kubeletVersion: str,
            kubeProxyVersion: str,
            operatingSystem: str,
            architecture: str,
          }),
          images: arr(open),
          volumesInUse: strings,
          volumesAttached: arr(open),
          config: open,
          runtimeHandlers: arr(open),
          features: open,
        },
        "Most recently observed status of the node.",
      ),
    },
  },
  "/v1/ConfigMap": {
    description: "ConfigMap holds configuration data for pods to consume.",
    properties: { data: stringMap, binaryData: { type: "object", additionalProperties: { type: "string", format: "byte" } }, immutable: bool },
  },
  "/v1/Secret": {
    description: "Secret holds secret data of a certain type.",
    properties: { data: { type: "object", additionalProperties: { type: "string", format: "byte" } }, stringData: stringMap, type: str, immutable: bool },
  },
  "/v1/Pod": { description: "Pod is a collection of containers that can run on a host.", properties: openSpecStatus },
  "/v1/ServiceAccount": {
    description: "ServiceAccount binds together a name, a principal that can be authenticated and authorized, and a set of secrets.",
    properties: { secrets: arr(open), imagePullSecrets: arr(obj({ name: str })), automountServiceAccountToken: bool },
  },
  "/v1/Event": {
    description: "Event is a report of an event somewhere in the cluster.",
    properties: {
      involvedObject: open,
      reason: str,
      message: str,
      source: obj({ component: str, host: str }),
      firstTimestamp: time,
      lastTimestamp: time,
      count: int32,
      type: str,
      eventTime: { type: "string", format: "date-time" },
      series: open,
      action: str,
      related: open,
      reportingComponent: str,
      reportingInstance: str,
    },
    required: ["involvedObject"],
  },
  "events.k8s.io/v1/Event": {
    description: "Event is a report of an event somewhere in the cluster. It generally denotes some state change in the system.",
    properties: {
      eventTime: { type: "string", format: "date-time" },
      series: obj({ count: int32, lastObservedTime: { type: "string", format: "date-time" } }),
      reportingController: str,
      reportingInstance: str,
      action: str,
      reason: str,
      regarding: open,
      related: open,
      note: str,
      type: str,
      deprecatedSource: open,
      deprecatedFirstTimestamp: time,
      deprecatedLastTimestamp: time,
      deprecatedCount: int32,
    },
    required: ["eventTime"],
  },
  "/v1/Service": {
    description: "Service is a named abstraction of software service (for example, mysql) consisting of local port (for example 3306) that the proxy listens on, and the selector that determines which pods will answer requests sent through the proxy.",
    properties: openSpecStatus,
  },
  "apps/v1/Deployment": { description: "Deployment enables declarative updates for Pods and ReplicaSets.", properties: openSpecStatus },
  "networking.k8s.io/v1/NetworkPolicy": { description: "NetworkPolicy describes what network traffic is allowed for a set of Pods", properties: { spec: open } },
  "policy/v1/PodDisruptionBudget": {
    description: "PodDisruptionBudget is an object to define the max disruption that can be caused to a collection of pods.",
    properties: {
      spec: obj({ minAvailable: intOrString, maxUnavailable: intOrString, selector: labelSelector, unhealthyPodEvictionPolicy: str }),
      status: open,
    },
  },
  "coordination.k8s.io/v1/Lease": {
    description: "Lease defines a lease concept.",
    properties: {
      spec: obj({
        holderIdentity: str,
        leaseDurationSeconds: int32,
        acquireTime: { type: "string", format: "date-time" },
        renewTime: { type: "string", format: "date-time" },
        leaseTransitions: int32,
        strategy: str,
        preferredHolder: str,
      }),
    },
  },
  "apiextensions.k8s.io/v1/CustomResourceDefinition": {
    description: "CustomResourceDefinition represents a resource that should be exposed on the API server.",
    properties: openSpecStatus,
    required: ["spec"],
  },
  "rbac.authorization.k8s.io/v1/ClusterRole": {
    description: "ClusterRole is a cluster level, logical grouping of PolicyRules that can be referenced as a unit by a RoleBinding or ClusterRoleBinding.",
    properties: { rules: arr(policyRule), aggregationRule: obj({ clusterRoleSelectors: arr(labelSelector) }) },
  },
  "rbac.authorization.k8s.io/v1/Role": {
    description: "Role is a namespaced, logical grouping of PolicyRules that can be referenced as a unit by a RoleBinding.",
    properties: { rules: arr(policyRule) },
  },
  "rbac.authorization.k8s.io/v1/ClusterRoleBinding": {
    description: "ClusterRoleBinding references a ClusterRole, but not contain it.",
    properties: { subjects: arr(subject), roleRef },
    required: ["roleRef"],
  },
  "rbac.authorization.k8s.io/v1/RoleBinding": {
    description: "RoleBinding references a role, but does not contain it.",
    properties: { subjects: arr(subject), roleRef },
    required: ["roleRef"],
  },
  "admissionregistration.k8s.io/v1/ValidatingWebhookConfiguration": {
    description: "ValidatingWebhookConfiguration describes the configuration of and admission webhook that accept or reject and object without changing it.",
    properties: { webhooks: arr(open) },
  },
};

/** The published schema of a built-in kind (apiVersion, kind and metadata included), or undefined. */
export function builtinSchema(group: string, version: string, kind: string): Schema | undefined {
  const body = BODIES[`${group}/${version}/${kind}`];
  if (!body) return undefined;
  return withEnvelope(body.properties, body.description, body.required);
}

/** apiVersion, kind and metadata (a reference to ObjectMeta) around a kind's own fields. */
export function withEnvelope(properties: Record<string, Schema>, description?: string, required?: string[]): Schema {
  const s: Schema = {
    type: "object",
    properties: {
      apiVersion: d(str, "APIVersion defines the versioned schema of this representation of an object."),
      kind: d(str, "Kind is a string value representing the REST resource this object represents."),
      metadata: { $ref: `#/definitions/${OBJECT_META_NAME}`, description: "Standard object's metadata." },
      ...properties,
    },
  };
  if (description) s.description = description;
  if (required?.length) s.required = required;
  return s;
}
