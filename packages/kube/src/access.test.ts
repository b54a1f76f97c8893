// Which configs stay light and what they put on a request; everything else goes to client-node.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { KubeConfig } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { inClusterAccess, kubeAccessForUrl, LiteKubeConfig, liteFromKubeconfig, loadKubeAccess } from "./access.js";

const kubeconfig = (user: object, cluster: object = {}) => ({
  apiVersion: "v1",
  kind: "Config",
  clusters: [{ name: "c", cluster: { server: "https://api.example:6443/", ...cluster } }],
  users: [{ name: "u", user }],
  contexts: [{ name: "x", context: { cluster: "c", user: "u" } }, { name: "other", context: { cluster: "c" } }],
  "current-context": "x",
});

async function optionsOf(kc: { applyToHTTPSOptions(o: any): Promise<void> }): Promise<Record<string, any>> {
  const o: Record<string, any> = { headers: {} };
  await kc.applyToHTTPSOptions(o);
  return o;
}

describe("liteFromKubeconfig", () => {
  it("takes the current context's cluster and user, with files relative to the kubeconfig", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kube-access-"));
    writeFileSync(join(dir, "ca.crt"), "CA");
    const lite = liteFromKubeconfig(kubeconfig({ token: "t0k" }, { "certificate-authority": "ca.crt", "tls-server-name": "api" }), dir)!;
    expect(lite.getCurrentCluster().server).toBe("https://api.example:6443");
    const o = await optionsOf(lite);
    expect(o.headers).toEqual({ Authorization: "Bearer t0k" });
    expect(o.ca.toString()).toBe("CA");
    expect(o.servername).toBe("api");
    expect(o.rejectUnauthorized).toBeUndefined();
  });

  it("puts client certificates, basic auth and impersonation on the options", async () => {
    const b64 = (s: string) => Buffer.from(s).toString("base64");
    const o = await optionsOf(liteFromKubeconfig(kubeconfig({ "client-certificate-data": b64("CERT"), "client-key-data": b64("KEY"), username: "ann", password: "pw", as: "bob" }), "/")!);
    expect([o.cert.toString(), o.key.toString(), o.auth, o.headers["Impersonate-User"]]).toEqual(["CERT", "KEY", "ann:pw", "bob"]);
  });

  it("leaves exec plugins, auth providers, proxies and unknown contexts to client-node", () => {
    expect(liteFromKubeconfig(kubeconfig({ exec: { command: "x", apiVersion: "client.authentication.k8s.io/v1" } }), "/")).toBeUndefined();
    expect(liteFromKubeconfig(kubeconfig({ "auth-provider": { name: "oidc", config: {} } }), "/")).toBeUndefined();
    expect(liteFromKubeconfig(kubeconfig({ token: "t" }, { "proxy-url": "http://proxy:3128" }), "/")).toBeUndefined();
    expect(liteFromKubeconfig({ ...kubeconfig({ token: "t" }), "current-context": "nope" }, "/")).toBeUndefined();
  });
});

describe("LiteKubeConfig", () => {
  it("refuses plain HTTP unless TLS verification is explicitly skipped, as client-node does", async () => {
    await expect(optionsOf(new LiteKubeConfig({ name: "c", server: "http://h:1", skipTLSVerify: false }, { name: "u" }))).rejects.toThrow(/HTTP protocol is not allowed/);
    expect((await optionsOf(kubeAccessForUrl("http://h:1", "t"))).headers).toEqual({ Authorization: "Bearer t" });
  });

  it("reads the in-cluster service-account token and CA from their files", async () => {
    const root = mkdtempSync(join(tmpdir(), "kube-sa-"));
    writeFileSync(join(root, "token"), "sa-token\n");
    writeFileSync(join(root, "ca.crt"), "SA-CA");
    const kc = inClusterAccess({ KUBERNETES_SERVICE_HOST: "fd00::1", KUBERNETES_SERVICE_PORT: "443" }, root);
    expect(kc.getCurrentCluster().server).toBe("https://[fd00::1]:443");
    const o = await optionsOf(kc);
    expect([o.headers.Authorization, o.ca.toString()]).toEqual(["Bearer sa-token", "SA-CA"]);
  });
});

describe("loadKubeAccess", () => {
  const dir = mkdtempSync(join(tmpdir(), "kube-load-"));

  it("loads a JSON kubeconfig lightly, from a file or $KUBECONFIG", async () => {
    const file = join(dir, "config.json");
    writeFileSync(file, JSON.stringify(kubeconfig({ token: "t" })));
    expect(await loadKubeAccess(file)).toBeInstanceOf(LiteKubeConfig);
    expect(await loadKubeAccess(undefined, { KUBECONFIG: file })).toBeInstanceOf(LiteKubeConfig);
  });

  it("uses the in-cluster config in a pod without KUBECONFIG", async () => {
    const kc = await loadKubeAccess(undefined, { KUBERNETES_SERVICE_HOST: "10.0.0.1", KUBERNETES_SERVICE_PORT: "443" });
    expect(kc.getCurrentCluster()?.server).toBe("https://10.0.0.1:443");
  });

  it("hands YAML, plugins and merged lists to client-node's KubeConfig", async () => {
    const yaml = join(dir, "config.yaml");
    writeFileSync(yaml, "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: https://yaml.example:6443\nusers:\n- name: u\n  user:\n    token: t\ncontexts:\n- name: x\n  context:\n    cluster: c\n    user: u\ncurrent-context: x\n");
    const fromYaml = await loadKubeAccess(yaml);
    expect(fromYaml).toBeInstanceOf(KubeConfig);
    expect(fromYaml.getCurrentCluster()?.server).toBe("https://yaml.example:6443");
    const exec = join(dir, "exec.json");
    writeFileSync(exec, JSON.stringify(kubeconfig({ exec: { command: "true", apiVersion: "client.authentication.k8s.io/v1" } })));
    expect(await loadKubeAccess(exec)).toBeInstanceOf(KubeConfig);
    const home = join(dir, "home");
    mkdirSync(join(home, ".kube"), { recursive: true });
    writeFileSync(join(home, ".kube", "config"), JSON.stringify(kubeconfig({ token: "h" })));
    expect(await loadKubeAccess(undefined, { HOME: home })).toBeInstanceOf(LiteKubeConfig);
  });
});
