// The watched kinds that have older versions (PodDisruptionBudget: policy/v1, policy/v1beta1 before
// Kubernetes 1.21) in the version the API server serves, asked once through discovery before the
// informers start. Until the server answers, nothing could be listed anyway: transient failures are
// retried with backoff; a refused or absent discovery keeps the current version (the informer then
// reports the kind missing, as for any kind the server does not serve).
import { ApiDiscovery, Resources, transientDiscoveryError, type KubeConfigLike, type ResourceType } from "@lockstep/kube";
import type { Logger } from "pino";

export interface ServedResources {
  podDisruptionBudget: ResourceType;
}

export async function servedResources(
  kc: KubeConfigLike,
  logger: Logger,
  signal: AbortSignal,
  backoff: { minMs?: number; maxMs?: number } = {},
): Promise<ServedResources> {
  const discovery = new ApiDiscovery(kc);
  const current = Resources.podDisruptionBudget;
  let delay = backoff.minMs ?? 500;
  while (!signal.aborted) {
    try {
      const pdb = await discovery.served(current);
      if (pdb.apiVersion !== current.apiVersion) logger.info({ kind: pdb.kind, apiVersion: pdb.apiVersion, current: current.apiVersion }, "older API version chosen through discovery");
      return { podDisruptionBudget: pdb };
    } catch (err) {
      if (!transientDiscoveryError(err)) {
        logger.warn({ kind: current.kind, apiVersion: current.apiVersion, err: (err as Error).message }, "API discovery refused; using the current version");
        break;
      }
      logger.warn({ kind: current.kind, err: (err as Error).message, retryInMs: delay }, "API discovery failed; retrying");
      await new Promise<void>((r) => {
        const t = setTimeout(done, delay);
        function done() {
          clearTimeout(t);
          signal.removeEventListener("abort", done);
          r();
        }
        signal.addEventListener("abort", done, { once: true });
      });
      delay = Math.min(delay * 2, backoff.maxMs ?? 30_000);
    }
  }
  return { podDisruptionBudget: current };
}
