// The static part of the type table: the built-in types Lockstep needs (kube-api.md §4 flags).
import { badRequest, fieldInvalid, fieldNotSupported, fieldRequired, type FieldError } from "./errors.js";
import { coreEventFields, coreToEventsV1, eventsV1Fields, eventsV1ToCore } from "./event-conversion.js";
import { eventNamespaceErrors } from "./event-validation.js";
import { bindingHooks, roleHooks } from "./rbac-validation.js";
import { ADMISSION_GROUP, validatingWebhookConfigurationHooks } from "./webhook-config.js";
import { resourceType, type FieldGetter, type KubeObject, type ResourceType, type TypeHooks } from "./types.js";

function str(v: unknown): string {
  if (v === undefined || v === null) return "";
  return typeof v === "string" ? v : String(v);
}

/** A built-in type: kube-sim's defaults, then its own flags. */
const builtin = resourceType;

const podFields: Record<string, FieldGetter> = {
  "spec.nodeName": (o) => str(o.spec?.nodeName),
  "spec.restartPolicy": (o) => str(o.spec?.restartPolicy),
  "spec.schedulerName": (o) => str(o.spec?.schedulerName),
  "spec.serviceAccountName": (o) => str(o.spec?.serviceAccountName),
  "spec.hostNetwork": (o) => String(o.spec?.hostNetwork === true),
  "status.phase": (o) => str(o.status?.phase),
  "status.podIP": (o) => str(o.status?.podIP),
  "status.nominatedNodeName": (o) => str(o.status?.nominatedNodeName),
};

/** events.k8s.io/v1 validation (ValidateEventCreate/Update for v1): what a writer most often gets wrong. */
const eventsV1Hooks: TypeHooks = {
  checkBody(obj) {
    for (const f of ["eventTime"]) {
      const v = obj[f];
      if (v === undefined || v === null) continue;
      if (typeof v !== "string" || !MICRO_TIME.test(v)) {
        const text = String(v);
        throw badRequest(
          `Event in version "v1" cannot be handled as a Event: parsing time ${JSON.stringify(text)} as "2006-01-02T15:04:05.000000Z07:00": cannot parse ${JSON.stringify(text.slice(19))} as ".000000"`,
        );
      }
    }
  },
  validate(obj, old) {
    const errs: FieldError[] = eventNamespaceErrors(eventsV1ToCore(obj));
    if (!obj.eventTime) errs.push(fieldRequired("eventTime", ""));
    for (const f of ["reportingController", "reportingInstance", "action", "reason"]) if (!obj[f]) errs.push(fieldRequired(f, ""));
    if (obj.type !== "Normal" && obj.type !== "Warning") errs.push(fieldNotSupported("type", obj.type ?? "", ["Normal", "Warning"]));
    if (typeof obj.note === "string" && Buffer.byteLength(obj.note) > 1024) errs.push(fieldInvalid("note", "", "can have at most 1024 characters"));
    if (obj.series) {
      if (!(obj.series.count >= 2)) errs.push(fieldInvalid("series.count", obj.series.count, "should be at least 2"));
      if (!obj.series.lastObservedTime) errs.push(fieldRequired("series.lastObservedTime", ""));
    }
    if (old) {
      for (const f of ["reportingController", "reportingInstance", "action", "reason", "type", "note"])
        if (JSON.stringify(obj[f]) !== JSON.stringify(old[f])) errs.push(fieldInvalid(f, obj[f], "field is immutable"));
      if (JSON.stringify(obj.regarding) !== JSON.stringify(old.regarding)) errs.push(fieldInvalid("regarding", obj.regarding, "field is immutable"));
    }
    return errs;
  },
};

const MICRO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}(Z|[+-]\d\d:\d\d)$/;

const leaseHooks: TypeHooks = {
  checkBody(obj) {
    for (const f of ["renewTime", "acquireTime"]) {
      const v = obj.spec?.[f];
      if (v === undefined || v === null) continue;
      if (typeof v !== "string" || !MICRO_TIME.test(v)) {
        const text = String(v);
        throw badRequest(
          `Lease in version "v1" cannot be handled as a Lease: parsing time ${JSON.stringify(text)} as "2006-01-02T15:04:05.000000Z07:00": cannot parse ${JSON.stringify(text.slice(19))} as ".000000"`,
        );
      }
    }
  },
  prepareForCreate: dropGatedLeaseFields,
  prepareForUpdate: dropGatedLeaseFields,
  validate(obj) {
    const errs: FieldError[] = [];
    const d = obj.spec?.leaseDurationSeconds;
    if (d !== undefined && d !== null && !(d > 0)) errs.push(fieldInvalid("spec.leaseDurationSeconds", d, "must be greater than 0"));
    const t = obj.spec?.leaseTransitions;
    if (t !== undefined && t !== null && !(t >= 0)) errs.push(fieldInvalid("spec.leaseTransitions", t, "must be greater than or equal to 0"));
    return errs;
  },
};

// preferredHolder / strategy exist only behind the CoordinatedLeaderElection gate, off by default.
function dropGatedLeaseFields(obj: KubeObject): void {
  if (obj.spec) {
    delete obj.spec.preferredHolder;
    delete obj.spec.strategy;
  }
}

export function builtinTypes(): ResourceType[] {
  return [
    builtin({
      group: "",
      plural: "namespaces",
      singular: "namespace",
      kind: "Namespace",
      namespaced: false,
      shortNames: ["ns"],
      subresources: ["status", "finalize"],
      statusSubresource: true,
      returnDeletedObject: true,
      nameRule: "label",
      fields: { "status.phase": (o) => str(o.status?.phase) },
      hooks: {
        prepareForCreate(obj) {
          obj.spec = { finalizers: ["kubernetes"], ...(obj.spec ?? {}) };
          obj.status = { phase: "Active" };
          obj.metadata!.labels = { ...(obj.metadata!.labels ?? {}), "kubernetes.io/metadata.name": obj.metadata!.name! };
        },
      },
    }),
    builtin({
      group: "",
      plural: "nodes",
      singular: "node",
      kind: "Node",
      namespaced: false,
      shortNames: ["no"],
      subresources: ["status", "proxy"],
      statusSubresource: true,
      fields: { "spec.unschedulable": (o) => String(o.spec?.unschedulable === true) },
    }),
    builtin({ group: "", plural: "configmaps", singular: "configmap", kind: "ConfigMap", namespaced: true, shortNames: ["cm"] }),
    builtin({
      group: "",
      plural: "secrets",
      singular: "secret",
      kind: "Secret",
      namespaced: true,
      fields: { type: (o) => str(o.type) },
      hooks: {
        prepareForCreate(obj) {
          if (!obj.type) obj.type = "Opaque";
        },
      },
    }),
    builtin({
      group: "",
      plural: "pods",
      singular: "pod",
      kind: "Pod",
      namespaced: true,
      shortNames: ["po"],
      categories: ["all"],
      subresources: ["status", "eviction"],
      statusSubresource: true,
      fields: podFields,
      hooks: {
        prepareForCreate(obj) {
          obj.status = { phase: "Pending" };
        },
      },
    }),
    builtin({ group: "", plural: "serviceaccounts", singular: "serviceaccount", kind: "ServiceAccount", namespaced: true, shortNames: ["sa"], subresources: ["token"] }),
    builtin({ group: "", plural: "events", singular: "event", kind: "Event", namespaced: true, shortNames: ["ev"], fields: coreEventFields, hooks: { validate: eventNamespaceErrors } }),
    // One store for both Event APIs, as on kube-apiserver: `kubectl get events` and `kubectl describe
    // node` show what an events.k8s.io/v1 recorder wrote.
    builtin({
      group: "events.k8s.io",
      plural: "events",
      singular: "event",
      kind: "Event",
      namespaced: true,
      shortNames: ["ev"],
      fields: eventsV1Fields,
      hooks: eventsV1Hooks,
      storage: { group: "", plural: "events", toStorage: eventsV1ToCore, fromStorage: coreToEventsV1 },
    }),
    // Stored only (no cluster IPs, endpoints, ReplicaSets or pods): what `helm install` of a chart
    // with them needs, e.g. Lockstep's own.
    builtin({ group: "", plural: "services", singular: "service", kind: "Service", namespaced: true, shortNames: ["svc"], categories: ["all"], subresources: ["status"], statusSubresource: true }),
    builtin({
      group: "apps",
      plural: "deployments",
      singular: "deployment",
      kind: "Deployment",
      namespaced: true,
      shortNames: ["deploy"],
      categories: ["all"],
      subresources: ["status"],
      statusSubresource: true,
      generation: true,
    }),
    builtin({ group: "networking.k8s.io", plural: "networkpolicies", singular: "networkpolicy", kind: "NetworkPolicy", namespaced: true, shortNames: ["netpol"], generation: true }),
    builtin({
      group: "policy",
      plural: "poddisruptionbudgets",
      singular: "poddisruptionbudget",
      kind: "PodDisruptionBudget",
      namespaced: true,
      shortNames: ["pdb"],
      subresources: ["status"],
      statusSubresource: true,
      generation: true,
      hooks: {
        prepareForCreate(obj) {
          obj.status = { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 };
        },
      },
    }),
    // Only what kured's reboot lock needs of a DaemonSet: its annotations (no controller behind it).
    builtin({
      group: "apps",
      plural: "daemonsets",
      singular: "daemonset",
      kind: "DaemonSet",
      namespaced: true,
      shortNames: ["ds"],
      categories: ["all"],
      subresources: ["status"],
      statusSubresource: true,
      generation: true,
      unconditionalUpdate: false,
    }),
    builtin({
      group: "coordination.k8s.io",
      plural: "leases",
      singular: "lease",
      kind: "Lease",
      namespaced: true,
      unconditionalUpdate: false,
      createOnUpdate: true,
      hooks: leaseHooks,
    }),
    builtin({
      group: "apiextensions.k8s.io",
      plural: "customresourcedefinitions",
      singular: "customresourcedefinition",
      kind: "CustomResourceDefinition",
      namespaced: false,
      shortNames: ["crd", "crds"],
      subresources: ["status"],
      statusSubresource: true,
      generation: true,
    }),
    ...rbacTypes(),
    builtin({
      group: ADMISSION_GROUP,
      plural: "validatingwebhookconfigurations",
      singular: "validatingwebhookconfiguration",
      kind: "ValidatingWebhookConfiguration",
      namespaced: false,
      generation: true,
      hooks: validatingWebhookConfigurationHooks,
    }),
    ...reviewTypes(),
  ];
}

const RBAC = "rbac.authorization.k8s.io";

function rbacTypes(): ResourceType[] {
  return [
    builtin({ group: RBAC, plural: "clusterrolebindings", singular: "clusterrolebinding", kind: "ClusterRoleBinding", namespaced: false, nameRule: "path", hooks: bindingHooks(false) }),
    builtin({ group: RBAC, plural: "clusterroles", singular: "clusterrole", kind: "ClusterRole", namespaced: false, nameRule: "path", hooks: roleHooks(false) }),
    builtin({ group: RBAC, plural: "rolebindings", singular: "rolebinding", kind: "RoleBinding", namespaced: true, nameRule: "path", hooks: bindingHooks(true) }),
    builtin({ group: RBAC, plural: "roles", singular: "role", kind: "Role", namespaced: true, nameRule: "path", hooks: roleHooks(true) }),
  ];
}

/** Create-only, never stored: answered by reviews.ts. */
function reviewTypes(): ResourceType[] {
  const review = (group: string, plural: string, kind: string, namespaced = false) =>
    builtin({ group, plural, singular: kind.toLowerCase(), kind, namespaced, verbs: ["create"], createOnly: true });
  return [
    review("authentication.k8s.io", "selfsubjectreviews", "SelfSubjectReview"),
    review("authentication.k8s.io", "tokenreviews", "TokenReview"),
    review("authorization.k8s.io", "localsubjectaccessreviews", "LocalSubjectAccessReview", true),
    review("authorization.k8s.io", "selfsubjectaccessreviews", "SelfSubjectAccessReview"),
    review("authorization.k8s.io", "subjectaccessreviews", "SubjectAccessReview"),
  ];
}
