import { describe, expect, it } from "vitest";
import { Authenticator, bearerToken, parseTokenAuthFile, signJwt, staticUsers, verifyJwt, type ServiceAccountClaims, type UidLookup } from "./authn.js";

describe("parseTokenAuthFile (kube-apiserver --token-auth-file)", () => {
  it("reads token,user,uid and quoted groups; skips blanks and comments", () => {
    const text = ['# token,user,uid,"groups"', "t1,alice,u-1", "", 't2,bob,,"ops,dev"', 't3,"carol ""c""",u-3,admins'].join("\n");
    expect(parseTokenAuthFile(text)).toEqual([
      { token: "t1", name: "alice", uid: "u-1" },
      { token: "t2", name: "bob", groups: ["ops", "dev"] },
      { token: "t3", name: 'carol "c"', uid: "u-3", groups: ["admins"] },
    ]);
  });

  it.each([
    ["t1,alice", "line 1 must have at least 3 columns (token, user name, user uid), found 2"],
    ['t1,alice,u,"ops', "line 1: unterminated quoted field"],
    ['t1,alice,u,"ops"x', "line 1: extraneous text after a quoted field"],
  ])("rejects %s", (line, message) => {
    expect(() => parseTokenAuthFile(line, "users.csv")).toThrow(`users.csv ${message}`);
  });
});

describe("staticUsers", () => {
  it("puts the admin token first and rejects shared or empty tokens", () => {
    expect(staticUsers("a", [{ token: "b", name: "bob" }])).toEqual([
      { token: "a", name: "kube-sim-admin", groups: ["system:masters", "system:authenticated"] },
      { token: "b", name: "bob" },
    ]);
    expect(() => staticUsers("a", [{ token: "a", name: "bob" }])).toThrow('users "kube-sim-admin" and "bob" share a token');
    expect(() => staticUsers(undefined, [{ token: "", name: "bob" }])).toThrow('user "bob" has an empty token');
  });
});

describe("bearerToken", () => {
  it.each([
    ["Bearer abc", "abc"],
    ["bearer abc ", "abc"],
    ["Basic abc", undefined],
    ["Bearer", undefined],
    [undefined, undefined],
  ])("%s → %s", (header, want) => {
    expect(bearerToken(header)).toBe(want);
  });
});

describe("ServiceAccount tokens", () => {
  const key = Buffer.alloc(32, 7);
  const claims: ServiceAccountClaims = {
    aud: ["a"],
    exp: 2000,
    iat: 1000,
    nbf: 1000,
    iss: "i",
    jti: "j",
    sub: "system:serviceaccount:ns:sa",
    "kubernetes.io": { namespace: "ns", serviceaccount: { name: "sa", uid: "u" } },
  };

  it("verifies only what the key signed", () => {
    const token = signJwt(claims, key, "k");
    expect(verifyJwt(token, key)).toEqual(claims);
    expect(verifyJwt(token, Buffer.alloc(32, 8))).toBeUndefined();
    expect(verifyJwt(`${token}x`, key)).toBeUndefined();
    expect(verifyJwt("a.b", key)).toBeUndefined();
  });

  it("authenticates until expiry, and only while the ServiceAccount keeps its uid", () => {
    let now = 1_000_000;
    let saUid: string | undefined = "uid-1";
    const lookup: UidLookup = (kind) => (kind === "ServiceAccount" ? saUid : undefined);
    const a = new Authenticator([{ token: "static", name: "alice" }], lookup, () => new Date(now));
    const { token, expirationTimestamp } = a.issue({ namespace: "ns", name: "sa", uid: "uid-1" }, { audiences: ["x"], expirationSeconds: 600 });
    expect(expirationTimestamp).toBe("1970-01-01T00:26:40Z");
    const ok = a.authenticate(token, ["x"]);
    expect(ok.authenticated && ok.user.username).toBe("system:serviceaccount:ns:sa");
    expect(a.authenticate(token, ["y"])).toEqual({ authenticated: false, error: '[invalid bearer token, token audiences ["x"] is invalid for the target audiences ["y"]]' });
    saUid = "uid-2";
    expect(a.authenticate(token, ["x"])).toEqual({ authenticated: false, error: "[invalid bearer token, service account UID (uid-2) does not match claim (uid-1)]" });
    saUid = "uid-1";
    now += 600_000;
    expect(a.authenticate(token, ["x"])).toEqual({ authenticated: false, error: "[invalid bearer token, service account token has expired]" });
    expect(a.authenticate("static")).toMatchObject({ authenticated: true, user: { username: "alice", groups: ["system:authenticated"] } });
    expect(a.authenticate("static", ["x"])).toEqual({ authenticated: false, error: "invalid bearer token" });
  });
});
