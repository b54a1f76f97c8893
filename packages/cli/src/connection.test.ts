import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { callerToken, callMetadata, channelCredentials } from "./connection.js";
import { EXIT } from "./exit-codes.js";

const dir = mkdtempSync(join(tmpdir(), "lockstep-cli-conn-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function kubeconfig(name: string, user: object): string {
  const file = join(dir, name);
  const doc = {
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "c", cluster: { server: "https://api.example:6443" } }],
    users: [{ name: "u", user }],
    contexts: [{ name: "x", context: { cluster: "c", user: "u" } }],
    "current-context": "x",
  };
  writeFileSync(file, JSON.stringify(doc));
  return file;
}

describe("callerToken", () => {
  const env = { HOME: dir } as NodeJS.ProcessEnv;

  it("prefers --token, then LOCKSTEP_TOKEN, then the kubeconfig's current user", async () => {
    const kc = kubeconfig("token.json", { token: "from-kubeconfig" });
    expect(await callerToken({ token: "from-flag", kubeconfig: kc }, { ...env, LOCKSTEP_TOKEN: "from-env" })).toBe("from-flag");
    expect(await callerToken({ kubeconfig: kc }, { ...env, LOCKSTEP_TOKEN: "from-env" })).toBe("from-env");
    expect(await callerToken({ kubeconfig: kc }, env)).toBe("from-kubeconfig");
    expect(await callerToken({}, { ...env, KUBECONFIG: kc })).toBe("from-kubeconfig");
  });

  it("sends none when there is no kubeconfig, or its user has no token", async () => {
    expect(await callerToken({}, env)).toBeUndefined();
    expect(await callerToken({ kubeconfig: kubeconfig("basic.json", { username: "u", password: "p" }) }, env)).toBeUndefined();
  });

  it("puts the token in the authorization metadata", async () => {
    expect((await callMetadata({ token: "abc" }, env)).get("authorization")).toEqual(["Bearer abc"]);
    expect((await callMetadata({}, env)).get("authorization")).toEqual([]);
  });

  it("says which --kubeconfig could not be read (a usage error)", async () => {
    await expect(callerToken({ kubeconfig: join(dir, "missing.yaml") }, env)).rejects.toMatchObject({ exitCode: EXIT.USAGE, message: expect.stringContaining("missing.yaml") });
  });
});

describe("channelCredentials", () => {
  it("is plaintext unless TLS is asked for", () => {
    expect(channelCredentials({})._isSecure()).toBe(false);
    expect(channelCredentials({ LOCKSTEP_GRPC_TLS: "true" })._isSecure()).toBe(true);
  });

  it("names the variable whose file cannot be read, and a certificate without its key", () => {
    expect(() => channelCredentials({ LOCKSTEP_GRPC_CA: join(dir, "nope.crt") })).toThrow(/^LOCKSTEP_GRPC_CA: cannot read .*nope\.crt/);
    writeFileSync(join(dir, "c.crt"), "x");
    expect(() => channelCredentials({ LOCKSTEP_GRPC_CERT: join(dir, "c.crt") })).toThrow("LOCKSTEP_GRPC_CERT and LOCKSTEP_GRPC_KEY go together");
  });
});
