// Authorization of kube-sim's own API requests (the opt-in `authorization: "RBAC"` mode): request
// attributes from the URL as kube-apiserver's RequestInfoFactory derives them, the 403 Forbidden
// body of its responsewriters, and the bootstrap roles a fresh real cluster has.
import { failure, KubeError } from "./errors.js";
import type { AccessRequest, Decision, UserInfo } from "./rbac.js";
import type { Route } from "./router.js";
import type { KubeObject } from "./types.js";

export type AuthorizationMode = "AlwaysAllow" | "RBAC";

/** The attributes RBAC sees for one HTTP request (verb from the resource verb or the HTTP method). */
export function requestAttributes(user: UserInfo, method: string, path: string, route: Route, verb: string): AccessRequest {
  if (route.kind !== "resource") return { user, nonResource: { path, verb: method.toLowerCase() } };
  let namespace = route.namespace ?? "";
  // GET /api/v1/namespaces/foo: the namespace of the request is foo.
  if (route.group === "" && route.plural === "namespaces" && route.name) namespace = route.name;
  return {
    user,
    resource: {
      namespace,
      verb,
      group: route.group,
      version: route.version,
      resource: route.plural,
      subresource: route.subresource ?? "",
      name: route.name ?? "",
    },
  };
}

/** The 403 a real server sends when no authorizer allowed the request. */
export function forbiddenFor(req: AccessRequest, decision: Decision): KubeError {
  const who = JSON.stringify(req.user.username);
  const suffix = decision.reason ? `: ${decision.reason}` : "";
  const r = req.resource;
  if (!r) {
    const n = req.nonResource!;
    return new KubeError(failure(403, `forbidden: User ${who} cannot ${n.verb} path ${JSON.stringify(n.path)}${suffix}`, "Forbidden", {}));
  }
  const resource = r.subresource ? `${r.resource}/${r.subresource}` : r.resource!;
  const scope = r.namespace ? `in the namespace ${JSON.stringify(r.namespace)}` : "at the cluster scope";
  const why = `User ${who} cannot ${r.verb} resource ${JSON.stringify(resource)} in API group ${JSON.stringify(r.group ?? "")} ${scope}${suffix}`;
  const qualified = r.group ? `${r.resource}.${r.group}` : r.resource!;
  const message = r.name ? `${qualified} ${JSON.stringify(r.name)} is forbidden: ${why}` : `${qualified} is forbidden: ${why}`;
  const details: Record<string, string> = {};
  if (r.name) details.name = r.name;
  if (r.group) details.group = r.group;
  details.kind = r.resource!;
  return new KubeError(failure(403, message, "Forbidden", details));
}

const RBAC_V1 = "rbac.authorization.k8s.io/v1";
const bootstrapMeta = (name: string) => ({
  name,
  labels: { "kubernetes.io/bootstrapping": "rbac-defaults" },
  annotations: { "rbac.authorization.kubernetes.io/autoupdate": "true" },
});

function clusterRole(name: string, rules: object[]): KubeObject {
  return { apiVersion: RBAC_V1, kind: "ClusterRole", metadata: bootstrapMeta(name), rules };
}

function clusterRoleBinding(name: string, role: string, groups: string[]): KubeObject {
  return {
    apiVersion: RBAC_V1,
    kind: "ClusterRoleBinding",
    metadata: bootstrapMeta(name),
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: role },
    subjects: groups.map((g) => ({ apiGroup: "rbac.authorization.k8s.io", kind: "Group", name: g })),
  };
}

/**
 * The part of kube-apiserver's bootstrap policy that matters here: cluster-admin for
 * system:masters, discovery and self-reviews for every authenticated user, and the
 * system:auth-delegator role (TokenReview + SubjectAccessReview) for services to bind.
 */
export function bootstrapPolicy(): KubeObject[] {
  return [
    clusterRole("cluster-admin", [
      { apiGroups: ["*"], resources: ["*"], verbs: ["*"] },
      { nonResourceURLs: ["*"], verbs: ["*"] },
    ]),
    clusterRoleBinding("cluster-admin", "cluster-admin", ["system:masters"]),
    clusterRole("system:discovery", [
      { nonResourceURLs: ["/api", "/api/*", "/apis", "/apis/*", "/healthz", "/livez", "/openapi", "/openapi/*", "/readyz", "/version", "/version/"], verbs: ["get"] },
    ]),
    clusterRoleBinding("system:discovery", "system:discovery", ["system:authenticated"]),
    clusterRole("system:basic-user", [
      { apiGroups: ["authorization.k8s.io"], resources: ["selfsubjectaccessreviews", "selfsubjectrulesreviews"], verbs: ["create"] },
      { apiGroups: ["authentication.k8s.io"], resources: ["selfsubjectreviews"], verbs: ["create"] },
    ]),
    clusterRoleBinding("system:basic-user", "system:basic-user", ["system:authenticated"]),
    clusterRole("system:public-info-viewer", [{ nonResourceURLs: ["/healthz", "/livez", "/readyz", "/version", "/version/"], verbs: ["get"] }]),
    clusterRoleBinding("system:public-info-viewer", "system:public-info-viewer", ["system:authenticated", "system:unauthenticated"]),
    clusterRole("system:auth-delegator", [
      { apiGroups: ["authentication.k8s.io"], resources: ["tokenreviews"], verbs: ["create"] },
      { apiGroups: ["authorization.k8s.io"], resources: ["subjectaccessreviews"], verbs: ["create"] },
    ]),
  ];
}
