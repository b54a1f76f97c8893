// The decision logic of LeaseAuth with an in-memory reviewer standing in for the API server's
// answers (the reviews themselves are tested against kube-sim in test/auth.test.ts).
import { silentLogger } from "@lockstep/runtime";
import { describe, expect, it } from "vitest";
import type { AccessQuestion, AccessReviewResult, Reviewer, TokenReviewResult } from "./kube-reviews.js";
import { AuthError, LeaseAuth, parseAuthMode } from "./lease-auth.js";

class TableReviewer implements Reviewer {
  tokenCalls = 0;
  accessCalls = 0;
  failing = false;
  constructor(
    private readonly users: Record<string, { username: string; groups: string[] }>,
    private readonly rights: Record<string, string[]>,
  ) {}
  async reviewToken(token: string): Promise<TokenReviewResult> {
    this.tokenCalls++;
    if (this.failing) return { kind: "failed", reason: "connection refused" };
    const u = this.users[token];
    return u ? { kind: "authenticated", username: u.username, uid: "", groups: u.groups } : { kind: "rejected", reason: "unknown token" };
  }
  async reviewAccess(q: AccessQuestion): Promise<AccessReviewResult> {
    this.accessCalls++;
    if (this.failing) return { kind: "failed", reason: "connection refused" };
    return (this.rights[q.user] ?? []).includes(q.verb) ? { kind: "allowed", reason: "" } : { kind: "denied", reason: "" };
  }
}

function setup(mode = "token", clock = () => 0) {
  const reviewer = new TableReviewer(
    { "t-alice": { username: "alice", groups: ["system:authenticated"] }, "t-root": { username: "root", groups: ["admins"] } },
    { alice: ["acquire", "get"], root: ["acquire", "force", "release-any"] },
  );
  const parsed = parseAuthMode(mode);
  if ("error" in parsed) throw new Error(parsed.error);
  return { reviewer, auth: new LeaseAuth({ mode: parsed.mode, reviewer, cacheTtlMs: 10_000, logger: silentLogger(), clock }) };
}

describe("LeaseAuth.authenticate", () => {
  it("turns a bearer token into its subject", async () => {
    const { auth } = setup();
    expect(await auth.authenticate({ authorization: "Bearer t-alice" })).toMatchObject({ subject: "alice", method: "token" });
  });

  it.each([
    [{}, "no credentials"],
    [{ authorization: "Basic YWxpY2U6eA==" }, "not \"Bearer <token>\""],
    [{ authorization: "Bearer nope" }, "not accepted: unknown token"],
  ])("refuses %j", async (creds, message) => {
    const { auth } = setup();
    await expect(auth.authenticate(creds)).rejects.toThrow(message);
    await expect(auth.authenticate(creds)).rejects.toBeInstanceOf(AuthError);
  });

  it("refuses when the review itself fails, and does not remember the failure", async () => {
    const { auth, reviewer } = setup();
    reviewer.failing = true;
    await expect(auth.authenticate({ authorization: "Bearer t-alice" })).rejects.toThrow("could not be verified");
    reviewer.failing = false;
    expect((await auth.authenticate({ authorization: "Bearer t-alice" })).subject).toBe("alice");
  });

  it("reuses an answer within the cache ttl, and asks again after it", async () => {
    let now = 0;
    const { auth, reviewer } = setup("token", () => now);
    await auth.authenticate({ authorization: "Bearer t-alice" });
    await auth.authenticate({ authorization: "Bearer t-alice" });
    expect(reviewer.tokenCalls).toBe(1);
    now = 10_001;
    await auth.authenticate({ authorization: "Bearer t-alice" });
    expect(reviewer.tokenCalls).toBe(2);
  });

  it("takes a verified client certificate's CN and O with mtls", async () => {
    const { auth } = setup("mtls");
    expect(await auth.authenticate({ certificateSubject: { CN: "robot", O: "ops" } })).toMatchObject({ subject: "robot", groups: ["ops", "system:authenticated"], method: "mtls" });
    await expect(auth.authenticate({ authorization: "Bearer t-alice" })).rejects.toThrow("needs a client certificate");
  });

  it("lets anyone in as nobody in particular with none", async () => {
    const { auth } = setup("none");
    expect(await auth.authenticate({})).toMatchObject({ subject: "", method: "none" });
  });
});

describe("LeaseAuth.require", () => {
  it("allows what RBAC grants and names the missing verb otherwise", async () => {
    const { auth } = setup();
    const alice = await auth.authenticate({ authorization: "Bearer t-alice" });
    await expect(auth.require(alice, "acquire", "n1", "acquire the lease of n1")).resolves.toBeUndefined();
    await expect(auth.require(alice, "force", "n1", "preempt the holder of n1")).rejects.toThrow('"alice" may not preempt the holder of n1: it needs the verb "force" on nodeleases.lockstep.io "n1"');
  });

  it("denies when the review fails (fail closed)", async () => {
    const { auth, reviewer } = setup();
    const root = await auth.authenticate({ authorization: "Bearer t-root" });
    reviewer.failing = true;
    expect(await auth.allowed(root, "force", "n1")).toBe(false);
    reviewer.failing = false;
    expect(await auth.allowed(root, "force", "n1")).toBe(true);
  });
});

describe("parseAuthMode", () => {
  it.each([
    ["none", "none"],
    ["token", { token: true, mtls: false }],
    ["token,mtls", { token: true, mtls: true }],
    [" mtls ", { token: false, mtls: true }],
  ])("reads %j", (text, mode) => expect(parseAuthMode(text)).toEqual({ mode }));

  it.each(["", "none,token", "tokens", "basic"])("refuses %j", (text) => expect(parseAuthMode(text)).toHaveProperty("error"));
});
