// Caller authentication and authorization as Lockstep's lease-coordinator will use them: static
// users, ServiceAccount tokens from the TokenRequest API, TokenReview and SubjectAccessReview
// answered from kube-sim's own RBAC objects — all through @kubernetes/client-node over real HTTP.
import * as k8s from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kubeConfigFor, SERVICE_ACCOUNT_ISSUER, startKubeSim, type KubeSim } from "../../src/index.js";
import { apiError, call, conformanceServer, onRealServer, realServerBefore, settled, SIM_ONLY } from "../helpers.js";

const ADMIN_TOKEN = "admin-token";
// The static users: the oracle (scripts/oracle) is started with the same ones.
const OPS_TOKEN = "lease-operator-token";
const BOB_TOKEN = "bob-token";
const RBAC = "rbac.authorization.k8s.io";
const NS = "lockstep";

let sim: KubeSim;
let now = Date.parse("2026-11-25T12:00:00Z");
// kube-sim runs on the test's clock; a real server on its own.
const clockNow = () => (onRealServer ? Date.now() : now);
let core: k8s.CoreV1Api;
let rbac: k8s.RbacAuthorizationV1Api;
let authn: k8s.AuthenticationV1Api;
let authz: k8s.AuthorizationV1Api;

const clientsFor = (token: string) => {
  const kc = kubeConfigFor({ url: sim.url, token }, k8s.KubeConfig);
  return { core: kc.makeApiClient(k8s.CoreV1Api), authz: kc.makeApiClient(k8s.AuthorizationV1Api) };
};

async function mint(name: string, spec: Partial<k8s.V1TokenRequestSpec> = {}): Promise<k8s.AuthenticationV1TokenRequest> {
  return core.createNamespacedServiceAccountToken({ name, namespace: NS, body: { spec: { audiences: [], ...spec } } });
}

const review = (token: string, audiences?: string[]) => authn.createTokenReview({ body: { spec: { token, ...(audiences ? { audiences } : {}) } } });

const sar = (user: string, groups: string[], attrs: k8s.V1ResourceAttributes) =>
  authz.createSubjectAccessReview({ body: { spec: { user, groups, resourceAttributes: attrs } } });

const SA_USER = `system:serviceaccount:${NS}:coordinator`;
const SA_GROUPS = ["system:serviceaccounts", `system:serviceaccounts:${NS}`, "system:authenticated"];

beforeAll(async () => {
  sim = await conformanceServer({
    token: ADMIN_TOKEN,
    users: [{ token: OPS_TOKEN, name: "lease-operator", uid: "ops-1", groups: ["lockstep:ops"] }],
    clock: () => new Date(now),
  });
  const kc = kubeConfigFor(sim, k8s.KubeConfig);
  core = kc.makeApiClient(k8s.CoreV1Api);
  rbac = kc.makeApiClient(k8s.RbacAuthorizationV1Api);
  authn = kc.makeApiClient(k8s.AuthenticationV1Api);
  authz = kc.makeApiClient(k8s.AuthorizationV1Api);
  await core.createNamespace({ body: { metadata: { name: NS } } });
  await core.createNamespacedServiceAccount({ namespace: NS, body: { metadata: { name: "coordinator" } } });

  // Who may do what to node leases (group lockstep.io, resource nodeleases, custom verbs).
  await rbac.createClusterRole({
    body: {
      metadata: { name: "lockstep-lease-admin" },
      rules: [{ apiGroups: ["lockstep.io"], resources: ["nodeleases"], verbs: ["acquire", "release-any", "force", "get"] }],
    },
  });
  await rbac.createClusterRole({
    body: { metadata: { name: "lockstep-lease-user" }, rules: [{ apiGroups: ["lockstep.io"], resources: ["nodeleases"], verbs: ["acquire", "get"] }] },
  });
  await rbac.createClusterRole({
    body: {
      metadata: { name: "force-worker-1" },
      rules: [{ apiGroups: ["lockstep.io"], resources: ["nodeleases"], resourceNames: ["worker-1"], verbs: ["force"] }],
    },
  });
  await rbac.createClusterRoleBinding({
    body: {
      metadata: { name: "lease-ops" },
      roleRef: { apiGroup: RBAC, kind: "ClusterRole", name: "lockstep-lease-admin" },
      subjects: [{ apiGroup: RBAC, kind: "Group", name: "lockstep:ops" }],
    },
  });
  await rbac.createClusterRoleBinding({
    body: {
      metadata: { name: "coordinator-leases" },
      roleRef: { apiGroup: RBAC, kind: "ClusterRole", name: "lockstep-lease-user" },
      subjects: [{ kind: "ServiceAccount", name: "coordinator", namespace: NS }],
    },
  });
  await rbac.createClusterRoleBinding({
    body: {
      metadata: { name: "alice-force-worker-1" },
      roleRef: { apiGroup: RBAC, kind: "ClusterRole", name: "force-worker-1" },
      subjects: [{ apiGroup: RBAC, kind: "User", name: "alice" }],
    },
  });
  await rbac.createNamespacedRole({
    namespace: NS,
    body: { metadata: { name: "lease-writer" }, rules: [{ apiGroups: ["coordination.k8s.io"], resources: ["leases"], verbs: ["get", "create", "update"] }] },
  });
  await rbac.createNamespacedRoleBinding({
    namespace: NS,
    body: {
      metadata: { name: "coordinator-lease-writer" },
      roleRef: { apiGroup: RBAC, kind: "Role", name: "lease-writer" },
      subjects: [{ kind: "ServiceAccount", name: "coordinator" }],
    },
  });
  // A real server's authorizer sees new bindings a moment later (its informer).
  await settled(async () => {
    const r = await sar(SA_USER, SA_GROUPS, { group: "coordination.k8s.io", resource: "leases", verb: "update", namespace: NS });
    expect(r.status?.allowed).toBe(true);
    const a = await sar("alice", [], { group: "lockstep.io", resource: "nodeleases", verb: "force", name: "worker-1" });
    expect(a.status?.allowed).toBe(true);
  });
});
afterAll(() => sim.stop());

describe("TokenReview", () => {
  it("authenticates a static user token as its user, plus system:authenticated", async () => {
    const r = await review(OPS_TOKEN);
    expect(r.apiVersion).toBe("authentication.k8s.io/v1");
    expect(r.kind).toBe("TokenReview");
    expect(r.status?.authenticated).toBe(true);
    expect(r.status?.user).toEqual({ username: "lease-operator", uid: "ops-1", groups: ["lockstep:ops", "system:authenticated"] });
    expect(r.status?.audiences).toEqual([SERVICE_ACCOUNT_ISSUER]);
    expect(r.status?.error).toBeUndefined();
  });

  it("maps the single token option to the admin user in system:masters", async (ctx) => {
    ctx.skip(onRealServer, SIM_ONLY.options);
    const r = await review(ADMIN_TOKEN);
    expect(r.status?.user).toEqual({ username: "kube-sim-admin", groups: ["system:masters", "system:authenticated"] });
  });

  it("does not authenticate an unknown token (authenticated omitted, as on a real server)", async () => {
    const r = await review("no-such-token");
    expect(r.status?.authenticated).toBeFalsy();
    expect(r.status?.user).toEqual({});
    expect(r.status?.error).toBe("invalid bearer token");
  });

  it("is not stored: create only", async () => {
    const list = await call(sim, "GET", "/apis/authentication.k8s.io/v1/tokenreviews");
    expect(list.status).toBe(405);
    expect(list.json.reason).toBe("MethodNotAllowed");
  });
});

describe("ServiceAccount tokens (TokenRequest)", () => {
  it("mints a fresh unguessable token that authenticates as the ServiceAccount", async () => {
    const sa = await core.readNamespacedServiceAccount({ name: "coordinator", namespace: NS });
    const t1 = await mint("coordinator");
    const t2 = await mint("coordinator");
    expect(t1.kind).toBe("TokenRequest");
    expect(t1.spec.expirationSeconds).toBe(3600);
    expect(t1.spec.audiences).toEqual([SERVICE_ACCOUNT_ISSUER]);
    // A real server's clock moves on meanwhile, and its timestamp has whole seconds.
    expect(Math.abs(new Date(t1.status!.expirationTimestamp).getTime() - (clockNow() + 3600_000))).toBeLessThan(onRealServer ? 10_000 : 1);
    // Two tokens minted in the same second differ by their jti claim (1.30+); 1.20 has none, so they are equal there.
    if (!realServerBefore(30)) expect(t1.status!.token).not.toBe(t2.status!.token);
    expect(t1.status!.token.length).toBeGreaterThan(100);

    const r = await review(t1.status!.token);
    expect(r.status?.authenticated).toBe(true);
    expect(r.status?.user?.username).toBe(SA_USER);
    expect(r.status?.user?.uid).toBe(sa.metadata!.uid);
    expect(r.status?.user?.groups).toEqual(SA_GROUPS);
    expect(r.status?.audiences).toEqual([SERVICE_ACCOUNT_ISSUER]);
  });

  it("a tampered token is not accepted", async () => {
    const { token } = (await mint("coordinator")).status!;
    const [h, p, s] = token.split(".");
    const claims = JSON.parse(Buffer.from(p!, "base64url").toString());
    claims["kubernetes.io"].serviceaccount.name = "someone-else";
    const forged = `${h}.${Buffer.from(JSON.stringify(claims)).toString("base64url")}.${s}`;
    expect((await review(forged)).status?.authenticated).toBeFalsy();
  });

  it("binds a token to its audiences", async () => {
    const { token } = (await mint("coordinator", { audiences: ["lockstep-lease-coordinator"] })).status!;
    const ok = await review(token, ["lockstep-lease-coordinator", "other"]);
    expect(ok.status?.authenticated).toBe(true);
    expect(ok.status?.audiences).toEqual(["lockstep-lease-coordinator"]);
    const wrong = await review(token);
    expect(wrong.status?.authenticated).toBeFalsy();
    expect(wrong.status?.error).toContain("is invalid for the target audiences");
  });

  it("stops working when it expires", async (ctx) => {
    ctx.skip(onRealServer, "kube-sim only: moves kube-sim's clock past the token's expiry (a real one would take 10 minutes)");
    const t = await mint("coordinator", { expirationSeconds: 600 });
    expect(t.spec.expirationSeconds).toBe(600);
    expect((await review(t.status!.token)).status?.authenticated).toBe(true);
    now += 601_000;
    const r = await review(t.status!.token);
    expect(r.status?.authenticated).toBeFalsy();
    expect(r.status?.error).toBe("[invalid bearer token, service account token has expired]");
  });

  it("stops working when the ServiceAccount is deleted, and stays dead when it is recreated", async () => {
    await core.createNamespacedServiceAccount({ namespace: NS, body: { metadata: { name: "short-lived" } } });
    const { token } = (await mint("short-lived")).status!;
    expect((await review(token)).status?.authenticated).toBe(true);
    await core.deleteNamespacedServiceAccount({ name: "short-lived", namespace: NS });
    // A real server caches a successful authentication for 10 s (README, "Known differences"); kube-sim checks every time.
    const gone = await settled(async () => {
      const r = await review(token);
      expect(r.status?.authenticated).toBeFalsy();
      return r;
    }, 15_000);
    expect(gone.status?.error).toBe('[invalid bearer token, serviceaccounts "short-lived" not found]');
    await core.createNamespacedServiceAccount({ namespace: NS, body: { metadata: { name: "short-lived" } } });
    const recreated = await review(token);
    expect(recreated.status?.authenticated).toBeFalsy();
    expect(recreated.status?.error).toContain("does not match claim");
  });

  it("can bind a token to a Pod of that ServiceAccount: it dies with the Pod", async () => {
    const other = await core.createNamespacedPod({ namespace: NS, body: { metadata: { name: "someone-0" }, spec: { containers: [{ name: "c", image: "x" }] } } });
    const foreign = await apiError(mint("coordinator", { boundObjectRef: { kind: "Pod", apiVersion: "v1", name: "someone-0", uid: other.metadata!.uid } }));
    expect(foreign.code).toBe(400);
    expect(foreign.body.message).toBe('cannot bind token for serviceaccount "coordinator" to pod running with different serviceaccount name.');
    const pod = await core.createNamespacedPod({
      namespace: NS,
      body: { metadata: { name: "coordinator-0" }, spec: { serviceAccountName: "coordinator", containers: [{ name: "c", image: "x" }] } },
    });
    const stale = await apiError(mint("coordinator", { boundObjectRef: { kind: "Pod", apiVersion: "v1", name: "coordinator-0", uid: "not-its-uid" } }));
    expect(stale.code).toBe(409);
    expect(stale.body.details).toEqual({ name: "coordinator-0", kind: "Pod" });
    const t = await mint("coordinator", { boundObjectRef: { kind: "Pod", apiVersion: "v1", name: "coordinator-0", uid: pod.metadata!.uid } });
    const r = await review(t.status!.token);
    expect(r.status?.user?.extra?.["authentication.kubernetes.io/pod-name"]).toEqual(["coordinator-0"]);
    await core.deleteNamespacedPod({ name: "coordinator-0", namespace: NS });
    await settled(async () => expect((await review(t.status!.token)).status?.authenticated).toBeFalsy(), 15_000);
  });

  it("rejects a lifetime under 10 minutes (422) and a missing ServiceAccount (404)", async () => {
    const short = await apiError(mint("coordinator", { expirationSeconds: 60 }));
    expect(short.code).toBe(422);
    expect(short.body.message).toBe(
      'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes',
    );
    const missing = await apiError(mint("nobody"));
    expect(missing.code).toBe(404);
    expect(missing.body.message).toBe('serviceaccounts "nobody" not found');
  });

  it("is accepted as a bearer token by kube-sim's own API; unknown and dead tokens get 401", async () => {
    await core.createNamespacedServiceAccount({ namespace: NS, body: { metadata: { name: "api-user" } } });
    const token = (await mint("api-user")).status!.token;
    const asSa = clientsFor(token);
    // Answered for the caller, so the token authenticated (any authenticated user may ask).
    const self = await asSa.authz.createSelfSubjectAccessReview({
      body: { spec: { resourceAttributes: { group: "lockstep.io", resource: "nodeleases", verb: "acquire" } } },
    });
    expect(self.status?.allowed).toBe(false); // api-user has no bindings

    expect((await apiError(clientsFor("wrong-token").core.listNamespace())).code).toBe(401);
    const noToken = await call({ url: sim.url }, "GET", "/api/v1/namespaces");
    expect(noToken.status).toBe(401);

    await core.deleteNamespacedServiceAccount({ name: "api-user", namespace: NS });
    await settled(async () => expect((await apiError(asSa.core.listNamespace())).code).toBe(401), 15_000);
    const dead = await call({ url: sim.url, token }, "GET", "/api/v1/namespaces");
    expect(dead.status).toBe(401);
    expect(dead.json).toEqual({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message: "Unauthorized", reason: "Unauthorized", code: 401 });
  });
});

describe("SubjectAccessReview", () => {
  it("allows the custom verb release-any on lockstep.io nodeleases through a ClusterRoleBinding to a group", async () => {
    const r = await sar("lease-operator", ["lockstep:ops", "system:authenticated"], { group: "lockstep.io", resource: "nodeleases", verb: "release-any", name: "worker-3" });
    expect(r.status).toEqual({ allowed: true, reason: 'RBAC: allowed by ClusterRoleBinding "lease-ops" of ClusterRole "lockstep-lease-admin" to Group "lockstep:ops"' });
  });

  it("denies release-any to the coordinator, which may only acquire", async () => {
    const denied = await sar(SA_USER, SA_GROUPS, { group: "lockstep.io", resource: "nodeleases", verb: "release-any", name: "worker-3" });
    expect(denied.status?.allowed).toBe(false);
    expect(denied.status?.denied).toBeFalsy();
    expect(denied.status?.reason).toBeUndefined();
    const allowed = await sar(SA_USER, SA_GROUPS, { group: "lockstep.io", resource: "nodeleases", verb: "acquire", name: "worker-3" });
    expect(allowed.status).toEqual({
      allowed: true,
      reason: 'RBAC: allowed by ClusterRoleBinding "coordinator-leases" of ClusterRole "lockstep-lease-user" to ServiceAccount "coordinator/lockstep"',
    });
  });

  it("evaluates the identity a TokenReview returned (the coordinator's flow)", async () => {
    const { token } = (await mint("coordinator")).status!;
    const who = (await review(token)).status!.user!;
    const r = await authz.createSubjectAccessReview({
      body: { spec: { user: who.username, uid: who.uid, groups: who.groups, extra: who.extra, resourceAttributes: { group: "lockstep.io", resource: "nodeleases", verb: "get" } } },
    });
    expect(r.status?.allowed).toBe(true);
  });

  it("a RoleBinding grants only inside its namespace", async () => {
    const here = await sar(SA_USER, SA_GROUPS, { group: "coordination.k8s.io", resource: "leases", verb: "update", namespace: NS, name: "worker-1" });
    expect(here.status).toEqual({
      allowed: true,
      reason: 'RBAC: allowed by RoleBinding "coordinator-lease-writer/lockstep" of Role "lease-writer" to ServiceAccount "coordinator/lockstep"',
    });
    const elsewhere = await sar(SA_USER, SA_GROUPS, { group: "coordination.k8s.io", resource: "leases", verb: "update", namespace: "default", name: "worker-1" });
    expect(elsewhere.status?.allowed).toBe(false);
    const clusterWide = await sar(SA_USER, SA_GROUPS, { group: "coordination.k8s.io", resource: "leases", verb: "update" });
    expect(clusterWide.status?.allowed).toBe(false);
  });

  it("honours resourceNames", async () => {
    const named = await sar("alice", [], { group: "lockstep.io", resource: "nodeleases", verb: "force", name: "worker-1" });
    expect(named.status?.allowed).toBe(true);
    const other = await sar("alice", [], { group: "lockstep.io", resource: "nodeleases", verb: "force", name: "worker-2" });
    expect(other.status?.allowed).toBe(false);
  });

  it("system:masters is always allowed; nonResourceAttributes are evaluated too", async () => {
    const masters = await authz.createSubjectAccessReview({ body: { spec: { user: "root", groups: ["system:masters"], nonResourceAttributes: { path: "/metrics", verb: "get" } } } });
    expect(masters.status).toEqual({ allowed: true });
    const other = await authz.createSubjectAccessReview({ body: { spec: { user: "alice", nonResourceAttributes: { path: "/metrics", verb: "get" } } } });
    expect(other.status?.allowed).toBe(false);
  });

  it("follows binding changes at once (no cache)", async () => {
    const attrs = { group: "lockstep.io", resource: "nodeleases", verb: "force", name: "worker-9" };
    expect((await sar("bob", [], attrs)).status?.allowed).toBe(false);
    await rbac.createClusterRoleBinding({
      body: { metadata: { name: "bob-admin" }, roleRef: { apiGroup: RBAC, kind: "ClusterRole", name: "lockstep-lease-admin" }, subjects: [{ apiGroup: RBAC, kind: "User", name: "bob" }] },
    });
    await settled(async () => expect((await sar("bob", [], attrs)).status?.allowed).toBe(true));
    await rbac.deleteClusterRoleBinding({ name: "bob-admin" });
    await settled(async () => expect((await sar("bob", [], attrs)).status?.allowed).toBe(false));
  });

  it("SelfSubjectAccessReview answers for the caller's token", async () => {
    const ops = clientsFor(OPS_TOKEN);
    const r = await ops.authz.createSelfSubjectAccessReview({ body: { spec: { resourceAttributes: { group: "lockstep.io", resource: "nodeleases", verb: "force" } } } });
    expect(r.status).toEqual({ allowed: true, reason: 'RBAC: allowed by ClusterRoleBinding "lease-ops" of ClusterRole "lockstep-lease-admin" to Group "lockstep:ops"' });
  });

  it("SelfSubjectReview tells the caller who it is", async (ctx) => {
    ctx.skip(realServerBefore(28), "SelfSubjectReview is served from 1.28 (beta 1.27); the real server is older");
    const token = (await mint("coordinator")).status!.token;
    const kc = kubeConfigFor({ url: sim.url, token }, k8s.KubeConfig);
    const r = await kc.makeApiClient(k8s.AuthenticationV1Api).createSelfSubjectReview({ body: {} });
    expect(r.status?.userInfo?.username).toBe(SA_USER);
    expect(r.status?.userInfo?.groups).toEqual(SA_GROUPS);
  });

  it("LocalSubjectAccessReview is confined to its namespace", async () => {
    const r = await authz.createNamespacedLocalSubjectAccessReview({
      namespace: NS,
      body: { metadata: { namespace: NS }, spec: { user: SA_USER, groups: SA_GROUPS, resourceAttributes: { namespace: NS, group: "coordination.k8s.io", resource: "leases", verb: "get" } } },
    });
    expect(r.status?.allowed).toBe(true);
    const mismatch = await apiError(
      authz.createNamespacedLocalSubjectAccessReview({
        namespace: NS,
        body: { metadata: { namespace: NS }, spec: { user: SA_USER, resourceAttributes: { namespace: "default", resource: "pods", verb: "get" } } },
      }),
    );
    expect(mismatch.code).toBe(422);
  });
});

describe("RBAC objects", () => {
  it("are served with discovery, and the review APIs are listed with verb create", async () => {
    const rbacDoc = (await call(sim, "GET", "/apis/rbac.authorization.k8s.io/v1")).json;
    expect(rbacDoc.resources.map((r: any) => `${r.name}:${r.namespaced}`).sort()).toEqual([
      "clusterrolebindings:false",
      "clusterroles:false",
      "rolebindings:true",
      "roles:true",
    ]);
    const authnDoc = (await call(sim, "GET", "/apis/authentication.k8s.io/v1")).json;
    // SelfSubjectReview is served as v1 from 1.28, and discovery names singulars from 1.27.
    expect(authnDoc.resources).toEqual([
      ...(realServerBefore(28) ? [] : [{ name: "selfsubjectreviews", singularName: "selfsubjectreview", namespaced: false, kind: "SelfSubjectReview", verbs: ["create"] }]),
      { name: "tokenreviews", singularName: realServerBefore(27) ? "" : "tokenreview", namespaced: false, kind: "TokenReview", verbs: ["create"] },
    ]);
    const authzDoc = (await call(sim, "GET", "/apis/authorization.k8s.io/v1")).json;
    // kube-sim serves no SelfSubjectRulesReview (README).
    expect(authzDoc.resources.map((r: any) => `${r.name}:${r.verbs.join(",")}`).sort()).toEqual([
      "localsubjectaccessreviews:create",
      "selfsubjectaccessreviews:create",
      ...(onRealServer ? ["selfsubjectrulesreviews:create"] : []),
      "subjectaccessreviews:create",
    ]);
    const core = (await call(sim, "GET", "/api/v1")).json;
    expect(core.resources.find((r: any) => r.name === "serviceaccounts/token")).toEqual({
      name: "serviceaccounts/token",
      singularName: "",
      namespaced: true,
      group: "authentication.k8s.io",
      version: "v1",
      kind: "TokenRequest",
      verbs: ["create"],
    });
    const groups = (await call(sim, "GET", "/apis")).json.groups.map((g: any) => g.name);
    expect(groups).toEqual(expect.arrayContaining([RBAC, "authentication.k8s.io", "authorization.k8s.io"]));
  });

  it("defaults apiGroups and validates bindings like the real server", async () => {
    const b = await rbac.createNamespacedRoleBinding({
      namespace: NS,
      body: { metadata: { name: "defaults" }, roleRef: { kind: "ClusterRole", name: "view" } as k8s.V1RoleRef, subjects: [{ kind: "User", name: "carol" }] },
    });
    expect(b.roleRef.apiGroup).toBe(RBAC);
    expect(b.subjects![0]!.apiGroup).toBe(RBAC);

    const badKind = await apiError(
      rbac.createClusterRoleBinding({ body: { metadata: { name: "bad" }, roleRef: { apiGroup: RBAC, kind: "Role", name: "x" }, subjects: [] } }),
    );
    expect(badKind.code).toBe(422);
    expect(badKind.body.details.causes).toEqual([{ reason: "FieldValueNotSupported", message: 'Unsupported value: "Role": supported values: "ClusterRole"', field: "roleRef.kind" }]);

    const changed = await apiError(rbac.replaceNamespacedRoleBinding({ name: "defaults", namespace: NS, body: { ...b, roleRef: { ...b.roleRef, name: "edit" } } }));
    expect(changed.code).toBe(422);
    expect(changed.body.message).toContain("roleRef: Invalid value");
    expect(changed.body.message).toContain("cannot change roleRef");

    const noVerbs = await apiError(rbac.createClusterRole({ body: { metadata: { name: "no-verbs" }, rules: [{ apiGroups: [""], resources: ["pods"], verbs: [] }] } }));
    expect(noVerbs.code).toBe(422);
    expect(noVerbs.body.details.causes[0].field).toBe("rules[0].verbs");

    // RBAC names are path segments, so "system:…" names are fine and "/" is not.
    await rbac.createClusterRole({ body: { metadata: { name: "system:lockstep:reader" }, rules: [] } });
    const slash = await apiError(rbac.createClusterRole({ body: { metadata: { name: "a/b" }, rules: [] } }));
    expect(slash.code).toBe(422);
    expect(slash.body.details.causes[0].message).toBe(`Invalid value: "a/b": may not contain '/'`);
  });
});

describe("malformed review bodies", () => {
  const cases: Array<[string, string, unknown, number, string]> = [
    ["TokenReview that is not JSON", "/apis/authentication.k8s.io/v1/tokenreviews", "{nope", 400, "couldn't get version/kind; json parse error"],
    ["TokenReview without a body", "/apis/authentication.k8s.io/v1/tokenreviews", undefined, 400, "the body of the request was empty; expected a TokenReview"],
    ["TokenReview that is an array", "/apis/authentication.k8s.io/v1/tokenreviews", [], 400, "cannot unmarshal array into Go value of type v1.TokenReview"],
    ["TokenReview with a string spec", "/apis/authentication.k8s.io/v1/tokenreviews", { spec: "x" }, 400, "cannot unmarshal string into Go struct field TokenReview.spec of type v1.TokenReviewSpec"],
    ["TokenReview with a numeric token", "/apis/authentication.k8s.io/v1/tokenreviews", { spec: { token: 1 } }, 400, "cannot unmarshal number into Go struct field TokenReview.spec.token of type string"],
    ["TokenReview without a token", "/apis/authentication.k8s.io/v1/tokenreviews", { spec: {} }, 400, "token is required for TokenReview in authentication"],
    ["SubjectAccessReview with array attributes", "/apis/authorization.k8s.io/v1/subjectaccessreviews", { spec: { user: "a", resourceAttributes: [] } }, 400, "cannot unmarshal array"],
    ["SubjectAccessReview with numeric groups", "/apis/authorization.k8s.io/v1/subjectaccessreviews", { spec: { groups: [1], resourceAttributes: {} } }, 400, "of type []string"],
    ["SubjectAccessReview without attributes", "/apis/authorization.k8s.io/v1/subjectaccessreviews", { spec: { user: "a" } }, 422, "exactly one of nonResourceAttributes or resourceAttributes must be specified"],
    ["SubjectAccessReview without user or groups", "/apis/authorization.k8s.io/v1/subjectaccessreviews", { spec: { resourceAttributes: { verb: "get" } } }, 422, "at least one of user or group must be specified"],
    [
      "SubjectAccessReview with both kinds of attributes",
      "/apis/authorization.k8s.io/v1/subjectaccessreviews",
      { spec: { user: "a", resourceAttributes: {}, nonResourceAttributes: {} } },
      422,
      "cannot be specified in combination with resourceAttributes",
    ],
    ["TokenRequest with a string lifetime", `/api/v1/namespaces/${NS}/serviceaccounts/coordinator/token`, { spec: { expirationSeconds: "600" } }, 400, "of type int64"],
  ];
  it.each(cases)("%s → %i", async (_name, path, body, code, message) => {
    const r = await call(sim, "POST", path, body);
    expect(r.status).toBe(code);
    expect(r.json.kind).toBe("Status");
    expect(r.json.reason).toBe(code === 400 ? "BadRequest" : "Invalid");
    // Decoding errors read as Go's encoding/json from 1.23 (sigs.k8s.io/json); older servers word them otherwise.
    if (!realServerBefore(23)) expect(r.json.message).toContain(message);
  });

  it("the server keeps serving after them", async () => {
    expect((await review(OPS_TOKEN)).status?.authenticated).toBe(true);
  });
});

describe("without any token configured", () => {
  it("allows every request as before, and still mints and reviews ServiceAccount tokens", async (ctx) => {
    ctx.skip(onRealServer, SIM_ONLY.options);
    const open = await startKubeSim();
    try {
      expect((await fetch(`${open.url}/api/v1/namespaces`)).status).toBe(200);
      expect((await fetch(`${open.url}/api/v1/namespaces`, { headers: { authorization: "Bearer anything" } })).status).toBe(200);
      const kc = kubeConfigFor(open, k8s.KubeConfig);
      await kc.makeApiClient(k8s.CoreV1Api).createNamespacedServiceAccount({ namespace: "default", body: { metadata: { name: "sa" } } });
      const token = open.serviceAccountToken("default", "sa");
      const r = await kc.makeApiClient(k8s.AuthenticationV1Api).createTokenReview({ body: { spec: { token } } });
      expect(r.status?.user?.username).toBe("system:serviceaccount:default:sa");
      const self = await kubeConfigFor({ url: open.url, token }, k8s.KubeConfig)
        .makeApiClient(k8s.AuthorizationV1Api)
        .createSelfSubjectAccessReview({ body: { spec: { resourceAttributes: { resource: "pods", verb: "get" } } } });
      expect(self.status?.allowed).toBe(false);
    } finally {
      await open.stop();
    }
  });
});

describe('authorization: "RBAC" (requests on kube-sim\'s own API are authorized)', () => {
  let guarded: KubeSim;
  let admin: k8s.RbacAuthorizationV1Api;
  let token: string;
  const as = (t: string) => kubeConfigFor({ url: guarded.url, token: t }, k8s.KubeConfig);
  // Its own namespace and ServiceAccount: on a real server (always RBAC here) this runs beside the tests above.
  const GNS = "lockstep-guarded";
  const G_SA_USER = `system:serviceaccount:${GNS}:coordinator`;

  beforeAll(async () => {
    guarded = onRealServer ? sim : await startKubeSim({ token: ADMIN_TOKEN, users: [{ token: BOB_TOKEN, name: "bob" }], authorization: "RBAC" });
    const kc = kubeConfigFor(guarded, k8s.KubeConfig);
    admin = kc.makeApiClient(k8s.RbacAuthorizationV1Api);
    const gcore = kc.makeApiClient(k8s.CoreV1Api);
    await gcore.createNamespace({ body: { metadata: { name: GNS } } });
    await gcore.createNamespacedServiceAccount({ namespace: GNS, body: { metadata: { name: "coordinator" } } });
    token = (await gcore.createNamespacedServiceAccountToken({ name: "coordinator", namespace: GNS, body: { spec: { audiences: [] } } })).status!.token;
  });
  afterAll(() => (guarded === sim ? undefined : guarded.stop()));

  it("a ServiceAccount without bindings may discover and review itself, nothing more", async () => {
    const sa = as(token);
    expect((await sa.makeApiClient(k8s.CoreApi).getAPIVersions()).versions).toEqual(["v1"]);
    const self = await sa.makeApiClient(k8s.AuthorizationV1Api).createSelfSubjectAccessReview({ body: { spec: { resourceAttributes: { resource: "pods", verb: "list", namespace: GNS } } } });
    expect(self.status?.allowed).toBe(false);
    const denied = await apiError(sa.makeApiClient(k8s.CoreV1Api).listNamespacedPod({ namespace: GNS }));
    expect(denied.code).toBe(403);
    const raw = await call({ url: guarded.url, token }, "GET", `/api/v1/namespaces/${GNS}/secrets/x`);
    expect(raw.status).toBe(403);
    expect(raw.json).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: `secrets "x" is forbidden: User "${G_SA_USER}" cannot get resource "secrets" in API group "" in the namespace "${GNS}"`,
      reason: "Forbidden",
      details: { name: "x", kind: "secrets" },
      code: 403,
    });
  });

  it("system:auth-delegator lets the coordinator review callers; a RoleBinding lets it write Leases in its namespace only", async () => {
    const sa = as(token);
    expect((await apiError(sa.makeApiClient(k8s.AuthenticationV1Api).createTokenReview({ body: { spec: { token: BOB_TOKEN } } }))).code).toBe(403);
    await admin.createClusterRoleBinding({
      body: {
        metadata: { name: "coordinator-auth-delegator" },
        roleRef: { apiGroup: RBAC, kind: "ClusterRole", name: "system:auth-delegator" },
        subjects: [{ kind: "ServiceAccount", name: "coordinator", namespace: GNS }],
      },
    });
    const who = await settled(() => sa.makeApiClient(k8s.AuthenticationV1Api).createTokenReview({ body: { spec: { token: BOB_TOKEN } } }));
    expect(who.status?.user?.username).toBe("bob");
    const may = await sa.makeApiClient(k8s.AuthorizationV1Api).createSubjectAccessReview({
      body: { spec: { user: "bob", groups: who.status!.user!.groups, resourceAttributes: { group: "lockstep.io", resource: "nodeleases", verb: "release-any" } } },
    });
    expect(may.status?.allowed).toBe(false);

    await admin.createNamespacedRole({ namespace: GNS, body: { metadata: { name: "leases" }, rules: [{ apiGroups: ["coordination.k8s.io"], resources: ["leases"], verbs: ["*"] }] } });
    await admin.createNamespacedRoleBinding({
      namespace: GNS,
      body: { metadata: { name: "coordinator-leases" }, roleRef: { apiGroup: RBAC, kind: "Role", name: "leases" }, subjects: [{ kind: "ServiceAccount", name: "coordinator" }] },
    });
    const leases = sa.makeApiClient(k8s.CoordinationV1Api);
    await settled(() => leases.createNamespacedLease({ namespace: GNS, body: { metadata: { name: "worker-1" }, spec: { holderIdentity: "coordinator" } } }));
    const elsewhere = await apiError(leases.createNamespacedLease({ namespace: "default", body: { metadata: { name: "worker-1" } } }));
    expect(elsewhere.code).toBe(403);
  });

  it("static users are authorized too; system:masters may do anything; unknown paths are forbidden", async () => {
    const bob = as(BOB_TOKEN);
    expect((await apiError(bob.makeApiClient(k8s.CoreV1Api).listNode())).code).toBe(403);
    const metrics = await call({ url: guarded.url, token: BOB_TOKEN }, "GET", "/metrics");
    expect(metrics.status).toBe(403);
    expect(metrics.json.message).toBe('forbidden: User "bob" cannot get path "/metrics"');
    const version = await call({ url: guarded.url, token: BOB_TOKEN }, "GET", "/version");
    expect(version.status).toBe(200);
    const nodes = await kubeConfigFor(guarded, k8s.KubeConfig).makeApiClient(k8s.CoreV1Api).listNode();
    expect(nodes.kind).toBe("NodeList");
  });

  it("seeds the bootstrap roles", async () => {
    const names = (await admin.listClusterRole()).items.map((r) => r.metadata!.name);
    expect(names).toEqual(expect.arrayContaining(["cluster-admin", "system:discovery", "system:basic-user", "system:public-info-viewer", "system:auth-delegator"]));
  });
});
