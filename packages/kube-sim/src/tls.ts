// A serving certificate for kube-sim, made at start with the machine's openssl (as the demo makes
// the lease webhook's): a throw-away CA, and a certificate it signs for loopback and the listen host.
// Clients trust the CA through the kubeconfig's certificate-authority-data, as with a real API
// server; kubectl and client-go send a bearer token only over TLS.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { isIP } from "node:net";
import { join } from "node:path";

/** PEM texts: what `startKubeSim({ tls })` serves with, and the CA clients verify it against. */
export interface ServingTls {
  cert: string;
  key: string;
  ca: string;
}

/** subjectAltName entries: loopback always, plus `host` unless it is a wildcard address. */
export function subjectAltNames(host: string): string[] {
  const names = ["IP:127.0.0.1", "IP:::1", "DNS:localhost"];
  if (host && host !== "0.0.0.0" && host !== "::") {
    const entry = isIP(host) ? `IP:${host}` : `DNS:${host}`;
    if (!names.includes(entry)) names.push(entry);
  }
  return names;
}

/** A CA and a serving certificate for `host` (valid 30 days), made in a temporary folder that is removed. */
export function generateServingTls(host = "127.0.0.1"): ServingTls {
  const dir = mkdtempSync(join(tmpdir(), "kube-sim-tls-"));
  const ssl = (...args: string[]) => {
    try {
      execFileSync("openssl", args, { cwd: dir, stdio: "pipe" });
    } catch (err) {
      const e = err as NodeJS.ErrnoException & { stderr?: Buffer };
      if (e.code === "ENOENT") throw new Error("kube-sim needs openssl on PATH to make its serving certificate (HTTPS is on whenever authentication is)");
      throw new Error(`openssl ${args[0]} failed: ${e.stderr?.toString().trim() || e.message}`);
    }
  };
  try {
    const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
    ssl("req", "-x509", ...ec, "-keyout", "ca.key", "-out", "ca.crt", "-days", "30", "-subj", "/CN=kube-sim-ca");
    writeFileSync(join(dir, "server.ext"), `subjectAltName=${subjectAltNames(host).join(",")}\nextendedKeyUsage=serverAuth\n`);
    ssl("req", ...ec, "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=kube-sim");
    ssl("x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial", "-out", "server.crt", "-days", "30", "-extfile", "server.ext");
    const read = (f: string) => readFileSync(join(dir, f), "utf8");
    return { cert: read("server.crt"), key: read("server.key"), ca: read("ca.crt") };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
