// @lockstep/kube/client-node: client-node's own KubeConfig, for tests, tools and the simulator. Loading
// it loads client-node's whole module graph; services reach the API server through `@lockstep/kube`.
import { KubeConfig } from "@kubernetes/client-node";

/**
 * Loads a KubeConfig: an explicit file, else in-cluster service-account config when running in a pod,
 * else $KUBECONFIG / ~/.kube/config (client-node's default rules).
 */
export function loadKubeConfig(file?: string): KubeConfig {
  const kc = new KubeConfig();
  if (file) kc.loadFromFile(file);
  else if (process.env.KUBERNETES_SERVICE_HOST && !process.env.KUBECONFIG) kc.loadFromCluster();
  else kc.loadFromDefault();
  return kc;
}

/** A KubeConfig for a plain-HTTP API server such as kube-sim (stack.md pitfall 21). */
export function kubeConfigForUrl(server: string, token?: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: "lockstep", server, skipTLSVerify: true }],
    users: [{ name: "lockstep", token }],
    contexts: [{ name: "lockstep", cluster: "lockstep", user: "lockstep" }],
    currentContext: "lockstep",
  });
  return kc;
}
