// Who the simulated MCO is on the API server in the "enforced" lease mode: its own ServiceAccounts
// (openshift-machine-config-operator/machine-config-controller and machine-config-daemon), as on a
// real cluster, so an admission webhook judges the requests by the user the real components have.
// The accounts are created if missing and their tokens come from the TokenRequest API.
import { KubeApiError, KubeHttp, statusCode, type KubeConfigLike } from "@lockstep/kube";
import { MCO_NAMESPACE } from "./constants.js";

export const MCO_CONTROLLER_SA = "machine-config-controller";
export const MCO_DAEMON_SA = "machine-config-daemon";
/** Long enough for any simulated update; the simulator asks once, at start. */
const TOKEN_SECONDS = 7 * 24 * 3600;

export const serviceAccountUser = (name: string, namespace = MCO_NAMESPACE) => `system:serviceaccount:${namespace}:${name}`;

/** `kc` with its credentials replaced by a bearer token (same server, same TLS settings). */
export function withBearerToken(kc: KubeConfigLike, token: string): KubeConfigLike {
  return {
    getCurrentCluster: () => kc.getCurrentCluster(),
    async applyToHTTPSOptions(opts: any): Promise<void> {
      await kc.applyToHTTPSOptions(opts);
      const headers: Record<string, unknown> = { ...(opts.headers ?? {}) };
      for (const k of Object.keys(headers)) if (k.toLowerCase() === "authorization") delete headers[k];
      headers.Authorization = `Bearer ${token}`;
      opts.headers = headers;
      delete opts.auth;
      // A client certificate would authenticate as its own user before the token is looked at.
      delete opts.cert;
      delete opts.key;
    },
  };
}

async function createIfMissing(http: KubeHttp, path: string, obj: object): Promise<void> {
  try {
    await http.request("POST", path, { body: obj });
  } catch (err) {
    if (statusCode(err) !== 409) throw err;
  }
}

/** Ensures the MCO's ServiceAccounts exist and returns a config acting as each. */
export async function mcoIdentities(kc: KubeConfigLike): Promise<{ controller: KubeConfigLike; daemon: KubeConfigLike }> {
  const http = new KubeHttp(kc, 2);
  const ns = MCO_NAMESPACE;
  await createIfMissing(http, "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } });
  const tokenFor = async (name: string): Promise<string> => {
    await createIfMissing(http, `/api/v1/namespaces/${ns}/serviceaccounts`, { apiVersion: "v1", kind: "ServiceAccount", metadata: { name, namespace: ns } });
    try {
      const tr = await http.request<{ status?: { token?: string } }>("POST", `/api/v1/namespaces/${ns}/serviceaccounts/${name}/token`, {
        body: { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: { expirationSeconds: TOKEN_SECONDS } },
      });
      if (!tr.status?.token) throw new Error("the TokenRequest answer has no status.token");
      return tr.status.token;
    } catch (err) {
      const why = err instanceof KubeApiError ? err.message.split("\n")[0] : (err as Error).message;
      throw new Error(`cluster-sim: cannot act as ${serviceAccountUser(name)} (the "enforced" lease mode needs a token for it): ${why}`);
    }
  };
  const [controller, daemon] = await Promise.all([tokenFor(MCO_CONTROLLER_SA), tokenFor(MCO_DAEMON_SA)]);
  return { controller: withBearerToken(kc, controller), daemon: withBearerToken(kc, daemon) };
}
