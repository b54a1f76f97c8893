import { describe, expect, it } from "vitest";
import { bootstrapPolicy, forbiddenFor, requestAttributes } from "./authz.js";
import { authorize, sourceFromObjects, type UserInfo } from "./rbac.js";
import { parsePath } from "./router.js";

const bob: UserInfo = { username: "bob", groups: ["system:authenticated"] };

describe("requestAttributes", () => {
  it.each([
    ["GET", "/api/v1/namespaces/ns/pods", "list", { namespace: "ns", verb: "list", group: "", version: "v1", resource: "pods", subresource: "", name: "" }],
    ["POST", "/api/v1/namespaces/ns/pods/p/eviction", "create", { namespace: "ns", verb: "create", group: "", version: "v1", resource: "pods", subresource: "eviction", name: "p" }],
    ["GET", "/api/v1/namespaces/ns", "get", { namespace: "ns", verb: "get", group: "", version: "v1", resource: "namespaces", subresource: "", name: "ns" }],
    ["PATCH", "/apis/lockstep.io/v1alpha1/bootimagepolicies/cluster/status", "patch", { namespace: "", verb: "patch", group: "lockstep.io", version: "v1alpha1", resource: "bootimagepolicies", subresource: "status", name: "cluster" }],
  ])("%s %s", (method, path, verb, resource) => {
    expect(requestAttributes(bob, method, path, parsePath(path), verb)).toEqual({ user: bob, resource });
  });

  it("non-resource paths use the HTTP method as verb", () => {
    expect(requestAttributes(bob, "GET", "/apis", parsePath("/apis"), "")).toEqual({ user: bob, nonResource: { path: "/apis", verb: "get" } });
    expect(requestAttributes(bob, "POST", "/metrics", parsePath("/metrics"), "")).toEqual({ user: bob, nonResource: { path: "/metrics", verb: "post" } });
  });
});

describe("forbiddenFor", () => {
  it("names the object, the verb, the group and the namespace like kube-apiserver", () => {
    const req = { user: bob, resource: { namespace: "ns", verb: "get", group: "", resource: "secrets", subresource: "", name: "s1" } };
    expect(forbiddenFor(req, { allowed: false, reason: "" }).status).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: 'secrets "s1" is forbidden: User "bob" cannot get resource "secrets" in API group "" in the namespace "ns"',
      reason: "Forbidden",
      details: { name: "s1", kind: "secrets" },
      code: 403,
    });
  });

  it("cluster scope, subresources, groups and reasons", () => {
    const req = { user: bob, resource: { namespace: "", verb: "update", group: "lockstep.io", resource: "nodedisruptionpolicies", subresource: "status", name: "" } };
    const s = forbiddenFor(req, { allowed: false, reason: 'RBAC: clusterrole.rbac.authorization.k8s.io "x" not found' }).status;
    expect(s.message).toBe(
      'nodedisruptionpolicies.lockstep.io is forbidden: User "bob" cannot update resource "nodedisruptionpolicies/status" in API group "lockstep.io" at the cluster scope: RBAC: clusterrole.rbac.authorization.k8s.io "x" not found',
    );
    expect(s.details).toEqual({ group: "lockstep.io", kind: "nodedisruptionpolicies" });
  });

  it("non-resource paths", () => {
    expect(forbiddenFor({ user: bob, nonResource: { path: "/metrics", verb: "get" } }, { allowed: false, reason: "" }).status.message).toBe(
      'forbidden: User "bob" cannot get path "/metrics"',
    );
  });
});

describe("bootstrapPolicy", () => {
  const source = sourceFromObjects(bootstrapPolicy());
  it.each([
    ["discovery for any authenticated user", { nonResource: { path: "/apis/lockstep.io/v1alpha1", verb: "get" } }, true],
    ["version", { nonResource: { path: "/version", verb: "get" } }, true],
    ["self access reviews", { resource: { verb: "create", group: "authorization.k8s.io", resource: "selfsubjectaccessreviews" } }, true],
    ["not token reviews (system:auth-delegator is not bound)", { resource: { verb: "create", group: "authentication.k8s.io", resource: "tokenreviews" } }, false],
    ["not reading pods", { resource: { verb: "list", group: "", resource: "pods", namespace: "default" } }, false],
  ])("%s", (_name, attrs, allowed) => {
    expect(authorize(source, { user: bob, ...attrs }).allowed).toBe(allowed);
  });
});
