// Kubeconfig for a running kube-sim: a YAML file for kubectl, options for client-node (stack.md §7).
import { createRequire } from "node:module";
import { writeFile } from "node:fs/promises";
import { stringify } from "yaml";

export interface SimEndpoint {
  url: string;
  token?: string;
  /** PEM of the CA that signed an HTTPS kube-sim's certificate; absent for plain HTTP. */
  ca?: string;
}

const NAME = "kube-sim";

/** The token clients send: the configured one, or any token when auth is off. */
function tokenOf(sim: SimEndpoint): string {
  return sim.token ?? "kube-sim";
}

export function kubeconfigYaml(sim: SimEndpoint, namespace = "default"): string {
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    // Over HTTPS the CA is pinned as with a real API server; plain HTTP has nothing to verify.
    clusters: [{ name: NAME, cluster: sim.ca ? { server: sim.url, "certificate-authority-data": Buffer.from(sim.ca).toString("base64") } : { server: sim.url, "insecure-skip-tls-verify": true } }],
    users: [{ name: NAME, user: { token: tokenOf(sim) } }],
    contexts: [{ name: NAME, context: { cluster: NAME, user: NAME, namespace } }],
    "current-context": NAME,
    preferences: {},
  });
}

export async function writeKubeconfig(sim: SimEndpoint, path: string): Promise<void> {
  await writeFile(path, kubeconfigYaml(sim), { mode: 0o600 });
}

/** Options for client-node's `KubeConfig.loadFromOptions`; `http://` needs skipTLSVerify (stack.md pitfall 21). */
export function kubeConfigOptions(sim: SimEndpoint) {
  return {
    clusters: [sim.ca ? { name: NAME, server: sim.url, caData: Buffer.from(sim.ca).toString("base64"), skipTLSVerify: false } : { name: NAME, server: sim.url, skipTLSVerify: true }],
    users: [{ name: NAME, token: tokenOf(sim) }],
    contexts: [{ name: NAME, cluster: NAME, user: NAME, namespace: "default" }],
    currentContext: NAME,
  };
}

/**
 * A client-node `KubeConfig` pointing at the simulator. client-node is resolved from the caller's
 * dependencies (it is a peer, not a dependency of kube-sim); Node >= 20.19 loads its ESM through require.
 */
export function kubeConfigFor<T = any>(sim: SimEndpoint, KubeConfigClass?: new () => T): T {
  type Kc = new () => { loadFromOptions(o: unknown): void };
  const Ctor = (KubeConfigClass ?? (createRequire(import.meta.url)("@kubernetes/client-node") as { KubeConfig: Kc }).KubeConfig) as unknown as Kc;
  const kc = new Ctor();
  kc.loadFromOptions(kubeConfigOptions(sim));
  return kc as T;
}
