// Plain HTTP/JSON requests to the API server over one shared keep-alive agent. client-node 1.4.0
// builds a new agent per request (no connection reuse) and runs every call through its typed
// machinery (ObjectSerializer walking the model, rxjs-style middleware, ApiException with a stack);
// for the coordinator's few Lease calls that was most of its CPU per grant. TLS settings and auth
// headers still come from the KubeConfig (its own applySecurityAuthentication), the headers reused
// for at most a second (tokens from files or exec plugins rotate slowly).
import * as http from "node:http";
import * as https from "node:https";
import { urlToHttpOptions } from "node:url";
import { RequestContext, type KubeConfig } from "@kubernetes/client-node";

/** How long auth headers from the KubeConfig are reused. */
const AUTH_REUSE_MS = 1_000;

type Agent = http.Agent | https.Agent;

/** An HTTP answer (any status), or a transport failure (no answer: refused, reset, TLS, auth plugin). */
export type HttpResult = { status: number; text: string } | { error: string };

export interface KubeHttp {
  request(method: "GET" | "POST" | "PUT", path: string, body?: string): Promise<HttpResult>;
}

export function kubeHttp(kc: KubeConfig, maxSockets = 64): KubeHttp {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error("No active cluster!");
  const server = new URL(cluster.server);
  const url = urlToHttpOptions(server);
  const base = { protocol: url.protocol, hostname: url.hostname, port: url.port, auth: url.auth };
  // A server URL may carry a path prefix (e.g. behind a proxy): API paths go below it.
  const prefix = server.pathname.replace(/\/+$/, "");
  const transport = url.protocol === "https:" ? https : http;
  let agent: Agent | undefined;
  let cached: { headers: Record<string, string>; atMs: number } | undefined;

  /** Runs the KubeConfig's auth on a probe request; keeps its headers and (once) its TLS settings. */
  async function authenticate(): Promise<Record<string, string>> {
    const probe = new RequestContext(cluster!.server, "GET" as never);
    await kc.applySecurityAuthentication(probe);
    if (agent === undefined) {
      const made: unknown = probe.getAgent();
      const ctor = (made as { constructor?: unknown } | undefined)?.constructor;
      const options = { ...((made as { options?: http.AgentOptions }).options ?? {}), keepAlive: true, maxSockets };
      // Proxy agents are kept as they are; plain http/https agents become one shared keep-alive agent.
      if (ctor === https.Agent) agent = new https.Agent(options);
      else if (ctor === http.Agent) agent = new http.Agent(options);
      else agent = made as Agent;
    }
    return probe.getHeaders();
  }

  async function authHeaders(): Promise<Record<string, string>> {
    const now = Date.now();
    if (cached === undefined || now - cached.atMs >= AUTH_REUSE_MS) cached = { headers: await authenticate(), atMs: now };
    return cached.headers;
  }

  function send(method: string, path: string, body: string | undefined, auth: Record<string, string>): Promise<HttpResult> {
    return new Promise((resolve) => {
      const headers: http.OutgoingHttpHeaders = { ...auth, accept: "application/json" };
      if (body !== undefined) {
        headers["content-type"] = "application/json";
        headers["content-length"] = Buffer.byteLength(body);
      }
      const req = transport.request({ ...base, path: prefix + path, method, headers, agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("error", (err) => resolve({ error: err.message }));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text: (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString("utf8") }));
      });
      req.on("error", (err) => resolve({ error: err.message }));
      req.end(body);
    });
  }

  return {
    async request(method, path, body) {
      let auth: Record<string, string>;
      try {
        auth = await authHeaders();
      } catch (err) {
        return { error: err instanceof Error ? err.message : String(err) };
      }
      return send(method, path, body, auth);
    },
  };
}
