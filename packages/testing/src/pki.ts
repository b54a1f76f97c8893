// A throw-away certificate authority for TLS tests, made with the machine's openssl: a CA, a
// server certificate for 127.0.0.1/localhost, and client certificates with a chosen CN and O (the
// user and groups a Kubernetes-style authenticator reads from them).
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface TestPki {
  dir: string;
  /** PEM contents of a file in `dir`: ca.crt, server.crt, server.key, <client>.crt, <client>.key. */
  pem(name: string): Buffer;
  path(name: string): string;
  remove(): void;
}

export interface TestClientCert {
  /** File name stem: <name>.crt and <name>.key. */
  name: string;
  cn: string;
  /** Organisations (groups). */
  o?: string[];
}

export function hasOpenssl(): boolean {
  try {
    execFileSync("openssl", ["version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

export function createTestPki(clients: readonly TestClientCert[] = [{ name: "client", cn: "lockstep-test-client" }]): TestPki {
  const dir = mkdtempSync(join(tmpdir(), "lockstep-tls-"));
  const ssl = (...args: string[]) => execFileSync("openssl", args, { cwd: dir, stdio: "pipe" });
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
  ssl("req", "-x509", ...ec, "-keyout", "ca.key", "-out", "ca.crt", "-days", "1", "-subj", "/CN=lockstep-test-ca");
  writeFileSync(join(dir, "server.ext"), "subjectAltName=IP:127.0.0.1,DNS:localhost\n");
  writeFileSync(join(dir, "client.ext"), "extendedKeyUsage=clientAuth\n");
  const issue = (name: string, subject: string, ext: string) => {
    ssl("req", ...ec, "-keyout", `${name}.key`, "-out", `${name}.csr`, "-subj", subject);
    ssl("x509", "-req", "-in", `${name}.csr`, "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial", "-out", `${name}.crt`, "-days", "1", "-extfile", ext);
  };
  issue("server", "/CN=lockstep-test-server", "server.ext");
  for (const c of clients) issue(c.name, `/CN=${c.cn}${(c.o ?? []).map((o) => `/O=${o}`).join("")}`, "client.ext");
  return {
    dir,
    pem: (name) => readFileSync(join(dir, name)),
    path: (name) => join(dir, name),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
