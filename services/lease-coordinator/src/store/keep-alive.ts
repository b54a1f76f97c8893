// client-node 1.4.0 builds a new http(s).Agent for every request (KubeConfig.createAgent), so no
// connection is ever reused and each write pays a TCP handshake; it also sends every request through
// node-fetch, whose per-request cost (Headers objects, body streams, URL parsing) dominated the
// coordinator's CPU profile. This keeps client-node's typed API classes (request building, model
// (de)serialisation, errors — and what the chart's RBAC scanner reads) but sends requests with
// node:http(s) over one shared keep-alive agent, and refreshes the KubeConfig's auth headers at
// most once a second instead of on every request.
import * as http from "node:http";
import * as https from "node:https";
import {
  createConfiguration,
  RequestContext,
  ResponseContext,
  ServerConfiguration,
  wrapHttpLibrary,
  type KubeConfig,
} from "@kubernetes/client-node";

type ApiConstructor<T> = new (config: ReturnType<typeof createConfiguration>) => T;

/** How long auth headers from the KubeConfig are reused (tokens from files or exec plugins rotate slowly). */
const AUTH_REUSE_MS = 1_000;

type Agent = http.Agent | https.Agent;

function send(ctx: RequestContext, agent: Agent | undefined): Promise<ResponseContext> {
  return new Promise((resolve, reject) => {
    const url = new URL(ctx.getUrl());
    const body = ctx.getBody() as string | Buffer | undefined;
    const headers: http.OutgoingHttpHeaders = { ...ctx.getHeaders() };
    if (body !== undefined && body !== null) headers["content-length"] = Buffer.byteLength(body as string);
    const transport = url.protocol === "https:" ? https : http;
    const req = transport.request(url, { method: ctx.getHttpMethod(), headers, agent, signal: ctx.getSignal() }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("error", reject);
      res.on("end", () => {
        const buf = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
        const out: Record<string, string> = {};
        for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(", ") : v;
        resolve(new ResponseContext(res.statusCode ?? 0, out, { text: async () => buf.toString("utf8"), binary: async () => buf }));
      });
    });
    req.on("error", reject);
    req.end(body ?? undefined);
  });
}

export function makeKeepAliveApiClient<T>(kc: KubeConfig, api: ApiConstructor<T>, maxSockets = 64): T {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error("No active cluster!");
  let shared: Agent | undefined;
  let proxy: Agent | undefined;
  let cached: { headers: Record<string, string>; atMs: number } | undefined;

  /** Runs the KubeConfig's auth on a probe request; keeps its headers and (once) its TLS settings. */
  async function authenticate(): Promise<Record<string, string>> {
    const probe = new RequestContext(cluster!.server, "GET" as never);
    await kc.applySecurityAuthentication(probe);
    if (shared === undefined && proxy === undefined) {
      const agent: unknown = probe.getAgent();
      const ctor = (agent as { constructor?: unknown } | undefined)?.constructor;
      const options = { ...((agent as { options?: http.AgentOptions }).options ?? {}), keepAlive: true, maxSockets };
      // Proxy agents are kept as they are; plain http/https agents become one shared keep-alive agent.
      if (ctor === https.Agent) shared = new https.Agent(options);
      else if (ctor === http.Agent) shared = new http.Agent(options);
      else proxy = agent as Agent;
    }
    return probe.getHeaders();
  }

  const auth = {
    getName: () => "default",
    async applySecurityAuthentication(ctx: RequestContext): Promise<void> {
      const now = Date.now();
      if (cached === undefined || now - cached.atMs >= AUTH_REUSE_MS) cached = { headers: await authenticate(), atMs: now };
      for (const [k, v] of Object.entries(cached.headers)) ctx.setHeaderParam(k, v);
    },
  };
  const httpApi = wrapHttpLibrary({ send: (ctx) => send(ctx, shared ?? proxy) });
  return new api(createConfiguration({ baseServer: new ServerConfiguration(cluster.server, {}), authMethods: { default: auth }, httpApi }));
}
