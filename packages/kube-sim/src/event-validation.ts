// The namespace rule every Event write meets on kube-apiserver, through either Event API
// (legacyValidateEvent of pkg/apis/core/validation/events.go), on the stored core/v1 form. Pure.
import { fieldInvalid, type FieldError } from "./errors.js";
import type { KubeObject } from "./types.js";

/**
 * An Event about a cluster-scoped object (a Node, a ClusterVersion) lives in `default` — where
 * client-go's recorders put it — or, when new-style (with an `eventTime`), in `kube-system` too. An
 * old-style Event about a namespaced object lives in that object's namespace; upstream checks no
 * namespace of a new-style one about a namespaced object.
 */
export function eventNamespaceErrors(stored: KubeObject): FieldError[] {
  const eventNs = stored.metadata?.namespace ?? "";
  const objectNs = typeof stored.involvedObject?.namespace === "string" ? stored.involvedObject.namespace : "";
  const newStyle = Boolean(stored.eventTime);
  if (newStyle && objectNs !== "") return [];
  const allowed = objectNs !== "" ? [objectNs] : newStyle ? ["default", "kube-system"] : ["", "default"];
  return allowed.includes(eventNs) ? [] : [fieldInvalid("involvedObject.namespace", objectNs, "does not match event.namespace")];
}
