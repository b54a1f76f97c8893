// Which validating webhooks a request must call, as kube-apiserver decides it
// (k8s.io/apiserver/pkg/admission/plugin/webhook/predicates/{rules,namespace,object} and
// generic/webhook.go ShouldCallHook), matchConditions included (match-conditions.ts). Pure: the
// caller supplies namespace labels.
import { evaluateMatchConditions } from "./match-conditions.js";
import { ADMISSION_GROUP, type Operation, type ValidatingWebhook, type WebhookRule } from "./webhook-config.js";
import { matchesLabels } from "./selectors.js";
import type { KubeObject } from "./types.js";

export interface GroupVersionResource {
  group: string;
  version: string;
  resource: string;
}

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

/** The attributes of one admission request (admission.Attributes). */
export interface AdmissionAttributes {
  operation: Operation;
  resource: GroupVersionResource;
  subresource: string;
  kind: GroupVersionKind;
  /** "" for cluster-scoped objects; for Namespace objects, the namespace's own name (as upstream). */
  namespace: string;
  name: string;
  /** The new object (CREATE/UPDATE, the Eviction for pods/eviction); undefined on DELETE. */
  object?: KubeObject;
  /** The stored object (UPDATE/DELETE). */
  oldObject?: KubeObject;
  /** Other served versions of the same resource, for matchPolicy Equivalent. */
  equivalentVersions?: string[];
}

/** A rule against the request (rules.Matcher.Matches). */
export function ruleMatches(rule: WebhookRule, a: { operation: string; resource: GroupVersionResource; subresource: string; namespace: string }): boolean {
  const isNamespace = a.resource.group === "" && a.resource.resource === "namespaces";
  if (rule.scope === "Namespaced" && (isNamespace || a.namespace === "")) return false;
  if (rule.scope === "Cluster" && !(isNamespace || a.namespace === "")) return false;
  if (!rule.operations.some((op) => op === "*" || op.toUpperCase() === a.operation)) return false;
  if (!exactOrWildcard(rule.apiGroups, a.resource.group)) return false;
  if (!exactOrWildcard(rule.apiVersions, a.resource.version)) return false;
  return rule.resources.some((rs) => {
    const i = rs.indexOf("/");
    const res = i < 0 ? rs : rs.slice(0, i);
    const sub = i < 0 ? "" : rs.slice(i + 1);
    return (res === "*" || res === a.resource.resource) && (sub === "*" || sub === a.subresource);
  });
}

function exactOrWildcard(items: string[], requested: string): boolean {
  return items.some((i) => i === "*" || i === requested);
}

/**
 * The resource version a webhook is called with: the requested one when a rule matches it, else
 * (matchPolicy Equivalent) the first other served version of the same resource a rule matches.
 */
export function matchingVersion(w: ValidatingWebhook, a: AdmissionAttributes): string | undefined {
  const base = { operation: a.operation, subresource: a.subresource, namespace: a.namespace };
  if (w.rules.some((r) => ruleMatches(r, { ...base, resource: a.resource }))) return a.resource.version;
  if (w.matchPolicy !== "Equivalent") return undefined;
  for (const v of a.equivalentVersions ?? []) {
    if (v === a.resource.version) continue;
    if (w.rules.some((r) => ruleMatches(r, { ...base, resource: { ...a.resource, version: v } }))) return v;
  }
  return undefined;
}

/**
 * namespaceSelector: ignored (matches) for cluster-scoped objects other than Namespaces; a
 * Namespace being created or updated is matched by its own new labels, anything else by the
 * labels of its namespace. `undefined` from `namespaceLabels` means the namespace does not exist.
 */
export function namespaceSelectorMatches(
  w: ValidatingWebhook,
  a: AdmissionAttributes,
  namespaceLabels: (name: string) => Record<string, string> | undefined,
): boolean | "namespace-not-found" {
  const isNamespace = a.resource.group === "" && a.resource.resource === "namespaces";
  if (a.namespace === "" && !isNamespace) return true;
  if (w.namespaceSelector.length === 0) return true;
  let labels: Record<string, string> | undefined;
  if (a.kind.group === "" && a.kind.kind === "Namespace" && (a.operation === "CREATE" || a.operation === "UPDATE")) labels = a.object?.metadata?.labels ?? {};
  else {
    labels = namespaceLabels(a.namespace);
    if (labels === undefined) return "namespace-not-found";
  }
  return matchesLabels(w.namespaceSelector, labels);
}

/** objectSelector: the new object or the old one matches (a missing object never does). */
export function objectSelectorMatches(w: ValidatingWebhook, a: AdmissionAttributes): boolean {
  if (w.objectSelector.length === 0) return true;
  const m = (o: KubeObject | undefined) => o !== undefined && o !== null && matchesLabels(w.objectSelector, o.metadata?.labels ?? {});
  return m(a.object) || m(a.oldObject);
}

const EXEMPT = new Set([
  "validatingwebhookconfigurations",
  "mutatingwebhookconfigurations",
  "validatingadmissionpolicies",
  "validatingadmissionpolicybindings",
  "mutatingadmissionpolicies",
  "mutatingadmissionpolicybindings",
]);

/** Requests on the admission configuration types never go to webhooks (no lock-out). */
export function isExempt(a: AdmissionAttributes): boolean {
  return a.resource.group === ADMISSION_GROUP && EXEMPT.has(a.resource.resource);
}

export interface WebhookMatch {
  webhook: ValidatingWebhook;
  /** The version of the resource the webhook is called with (differs under matchPolicy Equivalent). */
  version: string;
}

/** The `request` variable of matchConditions: the AdmissionReview request's fields the attributes carry. */
function requestVariable(a: AdmissionAttributes & { userInfo?: unknown; dryRun?: boolean; options?: unknown }): Record<string, unknown> {
  return {
    kind: a.kind,
    resource: a.resource,
    subResource: a.subresource || undefined,
    name: a.name || undefined,
    namespace: a.namespace || undefined,
    operation: a.operation,
    userInfo: a.userInfo,
    dryRun: a.dryRun,
    options: a.options,
  };
}

/**
 * Every webhook to call, in configuration order (configurations sorted by name, as upstream); or
 * the webhook whose matchConditions failed to evaluate under failurePolicy Fail, which refuses the
 * request without calling anybody.
 */
export function matchingWebhooks(
  hooks: ValidatingWebhook[],
  a: AdmissionAttributes,
  namespaceLabels: (name: string) => Record<string, string> | undefined,
): { matches: WebhookMatch[]; namespaceNotFound?: boolean; conditionError?: { webhook: ValidatingWebhook; message: string } } {
  if (isExempt(a)) return { matches: [] };
  const matches: WebhookMatch[] = [];
  for (const w of hooks) {
    const version = matchingVersion(w, a);
    if (version === undefined) continue;
    const ns = namespaceSelectorMatches(w, a, namespaceLabels);
    if (ns === "namespace-not-found") return { matches: [], namespaceNotFound: true };
    if (!ns || !objectSelectorMatches(w, a)) continue;
    if (w.matchConditions.length > 0) {
      const r = evaluateMatchConditions(w.matchConditions, { object: a.object, oldObject: a.oldObject, request: requestVariable(a) }, w.failurePolicy);
      if ("error" in r) return { matches: [], conditionError: { webhook: w, message: r.error } };
      if (!r.call) continue;
    }
    matches.push({ webhook: w, version });
  }
  return { matches };
}
