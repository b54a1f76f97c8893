// The coordinator's API server transport: @lockstep/kube's KubeHttp (one keep-alive agent, auth
// headers from the config reused for at most a second, no client-node module graph), with every
// outcome as a value. An answer of any status comes back with its body unparsed, so the caller
// parses only the 2xx bodies it keeps; a failure without an answer (refused, reset, TLS, auth) is
// `{ error }` instead of a thrown error, since the coordinator classifies both kinds itself.
import { KubeHttp as LiteKubeHttp, type KubeConfigLike } from "@lockstep/kube";

/** An HTTP answer (any status), or a transport failure (no answer: refused, reset, TLS, auth plugin). */
export type HttpResult = { status: number; text: string } | { error: string };

export interface KubeHttp {
  request(method: "GET" | "POST" | "PUT", path: string, body?: object): Promise<HttpResult>;
}

export function kubeHttp(kc: KubeConfigLike, maxSockets = 64): KubeHttp {
  const http = new LiteKubeHttp(kc, maxSockets);
  return {
    async request(method, path, body) {
      try {
        return await http.requestText(method, path, { body });
      } catch (err) {
        return { error: err instanceof Error ? err.message : String(err) };
      }
    },
  };
}
