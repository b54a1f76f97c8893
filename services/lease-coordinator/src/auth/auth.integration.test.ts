// Caller identity and rights over real gRPC: bearer tokens reviewed by kube-sim (TokenReview) and
// rights from its RBAC objects (SubjectAccessReview), client certificates over mutual TLS.
import * as grpc from "@grpc/grpc-js";
import { RbacAuthorizationV1Api } from "@kubernetes/client-node";
import { OperationType, type AcquireRequest, type AcquireResponse, type LeaseServiceClient } from "@lockstep/contracts";
import { kubeAccessForUrl } from "@lockstep/kube";
import { silentLogger } from "@lockstep/runtime";
import { createTestPki, hasOpenssl, type TestPki } from "@lockstep/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KubeReviewer } from "./kube-reviews.js";
import { LeaseAuth } from "./lease-auth.js";
import { grpcError, holdersInApi, startWorld, type World } from "../test-harness.js";

const ADMIN = "kube-admin-token";
const MCD_NS = "openshift-machine-config-operator";
const USERS = [
  { token: "t-alice", name: "alice", groups: ["system:authenticated"] },
  { token: "t-bob", name: "bob", groups: ["system:authenticated"] },
  { token: "t-mallory", name: "mallory", groups: ["system:authenticated"] },
  { token: "t-root", name: "root", groups: ["lease-admins", "system:authenticated"] },
];

const USER_VERBS = ["get", "list", "watch", "acquire"];

/** The chart's two ClusterRoles and their bindings, as an admin would create them. */
async function grantRights(world: World): Promise<void> {
  const rbac = world.kc.makeApiClient(RbacAuthorizationV1Api);
  const rule = (verbs: string[]) => [{ apiGroups: ["lockstep.io"], resources: ["nodeleases"], verbs }];
  await rbac.createClusterRole({ body: { metadata: { name: "lockstep-lease-user" }, rules: rule(USER_VERBS) } });
  await rbac.createClusterRole({ body: { metadata: { name: "lockstep-lease-admin" }, rules: rule([...USER_VERBS, "release-any", "force"]) } });
  const bind = (name: string, role: string, subjects: Array<{ kind: string; name: string; namespace?: string; apiGroup?: string }>) =>
    rbac.createClusterRoleBinding({ body: { metadata: { name }, roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: role }, subjects } });
  await bind("alice-leases", "lockstep-lease-user", [{ kind: "User", name: "alice", apiGroup: "rbac.authorization.k8s.io" }]);
  await bind("bob-leases", "lockstep-lease-user", [{ kind: "User", name: "bob", apiGroup: "rbac.authorization.k8s.io" }]);
  await bind("admins-leases", "lockstep-lease-admin", [{ kind: "Group", name: "lease-admins", apiGroup: "rbac.authorization.k8s.io" }]);
  await bind("mcd-leases", "lockstep-lease-user", [{ kind: "ServiceAccount", name: "machine-config-daemon", namespace: MCD_NS }]);
}

type Method = "acquire" | "release" | "renew" | "list" | "get" | "cancelPreemption";

function callAs<Res>(client: LeaseServiceClient, method: Method, req: object, token?: string): Promise<Res> {
  const md = new grpc.Metadata();
  if (token !== undefined) md.set("authorization", `Bearer ${token}`);
  const fn = (client[method] as unknown as (r: object, m: grpc.Metadata, cb: (e: grpc.ServiceError | null, r: Res) => void) => void).bind(client);
  return new Promise((resolve, reject) => fn(req, md, (err, res) => (err ? reject(err) : resolve(res))));
}

function acquireAs(client: LeaseServiceClient, token: string | undefined, fields: Partial<AcquireRequest> & { node: string }): Promise<AcquireResponse> {
  return callAs(client, "acquire", { operation: OperationType.OPERATION_TYPE_MAINTENANCE, holder: "", reason: "disk swap", durationSeconds: 600, waitSeconds: 0, force: false, ...fields }, token);
}

/** The code and details a call is refused with. */
async function refusal(p: Promise<unknown>): Promise<{ code: number; details: string }> {
  const err = await grpcError(p);
  return { code: err.code, details: err.details };
}

describe("LeaseService with token authentication (TokenReview + SubjectAccessReview by kube-sim)", () => {
  let world: World;
  let client: LeaseServiceClient;

  beforeAll(async () => {
    world = await startWorld({
      nodes: ["w1", "w2", "w3", "w4"],
      pools: { worker: "2" },
      sim: { token: ADMIN, users: USERS },
      // The coordinator reviews with its own (admin) access; a 0 ttl makes every call ask kube-sim.
      auth: (sim) => new LeaseAuth({ mode: { token: true, mtls: false }, reviewer: new KubeReviewer(kubeAccessForUrl(sim.url, ADMIN)), cacheTtlMs: 0, logger: silentLogger() }),
    });
    client = world.replicas[0]!.client;
    await grantRights(world);
  }, 60_000);
  afterAll(() => world?.stop());

  it("refuses a call without credentials or with a token the API server does not know", async () => {
    expect(await refusal(acquireAs(client, undefined, { node: "w1" }))).toMatchObject({ code: grpc.status.UNAUTHENTICATED, details: expect.stringContaining("no credentials") });
    expect(await refusal(acquireAs(client, "forged", { node: "w1" }))).toMatchObject({ code: grpc.status.UNAUTHENTICATED, details: expect.stringContaining("not accepted") });
    expect(await refusal(callAs(client, "list", { operation: 0, pool: "" }, undefined))).toMatchObject({ code: grpc.status.UNAUTHENTICATED });
  });

  it("grants a lease user's acquire under its own name, and refuses a spoofed holder", async () => {
    const granted = await acquireAs(client, "t-alice", { node: "w1" });
    expect(granted.granted).toBe(true);
    expect(granted.lease?.holder).toBe("alice");
    expect((await holdersInApi(world)).get("w1")).toBe("alice");

    const spoof = await refusal(acquireAs(client, "t-alice", { node: "w2", holder: "machine-config-controller/update" }));
    expect(spoof.code).toBe(grpc.status.PERMISSION_DENIED);
    expect(spoof.details).toContain('holder "machine-config-controller/update" is not yours');
    expect((await holdersInApi(world)).has("w2")).toBe(false);

    const suffixed = await acquireAs(client, "t-alice", { node: "w2", holder: "alice/ticket-42" });
    expect(suffixed.lease?.holder).toBe("alice/ticket-42");
    expect(await callAs(client, "release", { node: "w2", holder: "" }, "t-alice")).toEqual({ released: true });
  });

  it("refuses an authenticated caller without rights", async () => {
    const r = await refusal(acquireAs(client, "t-mallory", { node: "w3" }));
    expect(r.code).toBe(grpc.status.PERMISSION_DENIED);
    expect(r.details).toContain('"mallory" may not acquire the lease of w3: it needs the verb "acquire" on nodeleases.lockstep.io "w3"');
    expect(await refusal(callAs(client, "list", { operation: 0, pool: "" }, "t-mallory"))).toMatchObject({ code: grpc.status.PERMISSION_DENIED });
  });

  it("lets a lease user neither release another's lease nor force, and a lease admin both", async () => {
    const release = await refusal(callAs(client, "release", { node: "w1", holder: "alice" }, "t-bob"));
    expect(release.code).toBe(grpc.status.PERMISSION_DENIED);
    expect(release.details).toContain('needs the verb "release-any"');
    // Naming no holder, bob releases only what bob holds: nothing here, which is a refusal for him, not alice's loss.
    expect(await callAs(client, "release", { node: "w1", holder: "" }, "t-bob").catch((e: grpc.ServiceError) => e.code)).toBe(grpc.status.FAILED_PRECONDITION);
    expect((await holdersInApi(world)).get("w1")).toBe("alice");

    const force = await refusal(acquireAs(client, "t-bob", { node: "w1", force: true }));
    expect(force.code).toBe(grpc.status.PERMISSION_DENIED);
    expect(force.details).toContain('needs the verb "force"');

    expect(await callAs(client, "release", { node: "w1", holder: "alice" }, "t-root")).toEqual({ released: true });
    expect((await holdersInApi(world)).has("w1")).toBe(false);
  });

  it("authenticates a service account by the token the TokenRequest API issued it", async () => {
    await world.core.createNamespace({ body: { metadata: { name: MCD_NS } } });
    await world.core.createNamespacedServiceAccount({ namespace: MCD_NS, body: { metadata: { name: "machine-config-daemon" } } });
    const tr = await world.core.createNamespacedServiceAccountToken({ namespace: MCD_NS, name: "machine-config-daemon", body: { spec: { audiences: [], expirationSeconds: 600 } } });
    const token = tr.status!.token;
    const subject = `system:serviceaccount:${MCD_NS}:machine-config-daemon`;
    const granted = await acquireAs(client, token, { node: "w4", operation: OperationType.OPERATION_TYPE_UPDATE, holder: `${subject}/w4` });
    expect(granted.granted).toBe(true);
    expect(granted.lease?.holder).toBe(`${subject}/w4`);
    // The release names no holder: the node's holder is the caller's own, under its suffix.
    expect(await callAs(client, "release", { node: "w4", holder: "" }, token)).toEqual({ released: true });
  });

  it("bounds what a request may carry", async () => {
    const big = await refusal(acquireAs(client, "t-alice", { node: "w3", reason: "x".repeat(120 * 1024) }));
    expect([grpc.status.INVALID_ARGUMENT, grpc.status.RESOURCE_EXHAUSTED]).toContain(big.code);
    const long = await refusal(acquireAs(client, "t-alice", { node: "w3", reason: "y".repeat(2_000) }));
    expect(long).toMatchObject({ code: grpc.status.INVALID_ARGUMENT, details: expect.stringContaining("reason is 2000 characters long; at most 1024") });
    expect((await holdersInApi(world)).has("w3")).toBe(false);
  });

  it("lets the preemptor withdraw its own preemption, another only with release-any", async () => {
    expect((await acquireAs(client, "t-alice", { node: "w3", operation: OperationType.OPERATION_TYPE_UPDATE })).granted).toBe(true);
    const forced = await acquireAs(client, "t-root", { node: "w3", operation: OperationType.OPERATION_TYPE_MAINTENANCE, force: true });
    expect(forced.deniedCode).toBe("PreemptionPending");
    // bob names nobody: he withdraws only his own, and has none here.
    const notHis = await refusal(callAs(client, "cancelPreemption", { node: "w3", holder: "" }, "t-bob"));
    expect(notHis).toMatchObject({ code: grpc.status.FAILED_PRECONDITION, details: "NotPreemptor: w3 is preempted by root (Maintenance), not by bob" });
    const another = await refusal(callAs(client, "cancelPreemption", { node: "w3", holder: "root" }, "t-bob"));
    expect(another.code).toBe(grpc.status.PERMISSION_DENIED);
    expect(another.details).toContain('needs the verb "release-any"');
    expect(await callAs(client, "cancelPreemption", { node: "w3", holder: "" }, "t-root")).toMatchObject({ cancelled: true, lease: { holder: "alice", preemptedBy: "" } });
    expect(await callAs(client, "release", { node: "w3", holder: "" }, "t-alice")).toEqual({ released: true });
  });
});

describe.skipIf(!hasOpenssl())("LeaseService with mutual TLS authentication", () => {
  let world: World;
  let pki: TestPki;

  beforeAll(async () => {
    pki = createTestPki([
      { name: "ops", cn: "ops-robot", o: ["lease-admins"] },
      { name: "guest", cn: "guest" },
    ]);
    world = await startWorld({
      nodes: ["m1"],
      sim: { token: ADMIN },
      grpcTls: { cert: pki.pem("server.crt"), key: pki.pem("server.key"), ca: pki.pem("ca.crt"), requireClientCert: true },
      clientCredentials: grpc.credentials.createSsl(pki.pem("ca.crt"), pki.pem("ops.key"), pki.pem("ops.crt")),
      auth: (sim) => new LeaseAuth({ mode: { token: false, mtls: true }, reviewer: new KubeReviewer(kubeAccessForUrl(sim.url, ADMIN)), logger: silentLogger() }),
    });
    const rbac = world.kc.makeApiClient(RbacAuthorizationV1Api);
    await rbac.createClusterRole({ body: { metadata: { name: "lease-admin" }, rules: [{ apiGroups: ["lockstep.io"], resources: ["nodeleases"], verbs: ["*"] }] } });
    await rbac.createClusterRoleBinding({
      body: { metadata: { name: "ops" }, roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "lease-admin" }, subjects: [{ kind: "Group", name: "lease-admins", apiGroup: "rbac.authorization.k8s.io" }] },
    });
  }, 60_000);
  afterAll(async () => {
    await world?.stop();
    pki?.remove();
  });

  it("takes the certificate's CN as the holder and its O as the groups RBAC sees", async () => {
    const res = await acquireAs(world.replicas[0]!.client, undefined, { node: "m1" });
    expect(res.granted).toBe(true);
    expect(res.lease?.holder).toBe("ops-robot");
  });

  it("refuses a certificate whose subject has no rights", async () => {
    const { LeaseServiceClient } = await import("@lockstep/contracts");
    const guest = new LeaseServiceClient(world.replicas[0]!.address, grpc.credentials.createSsl(pki.pem("ca.crt"), pki.pem("guest.key"), pki.pem("guest.crt")));
    try {
      expect(await refusal(callAs(guest, "list", { operation: 0, pool: "" }))).toMatchObject({ code: grpc.status.PERMISSION_DENIED, details: expect.stringContaining('"guest" may not list') });
    } finally {
      guest.close();
    }
  });
});
