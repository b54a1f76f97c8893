// Plain JSON requests and watch streams to the API server over one keep-alive agent, configured from
// a KubeConfigLike. No model (de)serialisation: objects are what the API server sent, parsed once.
// TLS settings come from the config once (they are fixed per process); auth headers are re-asked
// for at most every second, so rotating tokens (files, exec plugins) are picked up.
import * as http from "node:http";
import * as https from "node:https";
import { urlToHttpOptions } from "node:url";
import type { KubeConfigLike } from "./access.js";
import { KubeApiError } from "./errors.js";

const AUTH_REUSE_MS = 1_000;
const TLS_OPTIONS = ["ca", "cert", "key", "pfx", "passphrase", "rejectUnauthorized", "servername"] as const;

export type Query = Record<string, string | number | boolean | undefined>;

export interface RequestOptions {
  query?: Query;
  /** Sent as JSON. */
  body?: unknown;
  /** Default application/json (application/merge-patch+json for PATCH). */
  contentType?: string;
  /** Aborts the request (e.g. AbortSignal.timeout): the call rejects. */
  signal?: AbortSignal;
}

export interface WatchHandle {
  /** Ends the watch; `done` is then called with no error. */
  abort(): void;
}

type Agent = http.Agent | https.Agent;

function withQuery(path: string, query?: Query): string {
  if (!query) return path;
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== "") q.set(k, String(v));
  const s = q.toString();
  return s ? `${path}?${s}` : path;
}

export class KubeHttp {
  private readonly base: { protocol: string | null; hostname: string | null; port: string | number | null | undefined };
  private readonly prefix: string;
  private readonly transport: typeof http | typeof https;
  private agent: Agent | undefined;
  private auth: { headers: Record<string, string>; atMs: number } | undefined;

  constructor(
    private readonly kc: KubeConfigLike,
    private readonly maxSockets = 64,
  ) {
    const cluster = kc.getCurrentCluster();
    if (!cluster) throw new Error("No active cluster!");
    const url = new URL(cluster.server);
    const o = urlToHttpOptions(url);
    this.base = { protocol: o.protocol ?? null, hostname: o.hostname ?? null, port: o.port };
    // A server URL may carry a path prefix (e.g. behind a proxy): API paths go below it.
    this.prefix = url.pathname.replace(/\/+$/, "");
    this.transport = url.protocol === "https:" ? https : http;
  }

  /** A JSON request; resolves with the parsed body of a 2xx answer, rejects with KubeApiError otherwise. */
  async request<T = unknown>(method: string, path: string, o: RequestOptions = {}): Promise<T> {
    const { status, text } = await this.requestText(method, path, o);
    if (status < 200 || status >= 300) throw new KubeApiError(status, text, `${method} ${path}`);
    try {
      return (text ? JSON.parse(text) : undefined) as T;
    } catch (err) {
      throw new Error(`${method} ${path}: the answer is not JSON (${(err as Error).message})`, { cause: err });
    }
  }

  /**
   * A request answered with any status: its status and body text, unparsed (for callers that
   * classify answers themselves and parse only what they keep). Rejects only when there is no
   * complete answer (auth, connection, TLS, truncated body).
   */
  async requestText(method: string, path: string, o: RequestOptions = {}): Promise<{ status: number; text: string }> {
    const body = o.body === undefined ? undefined : JSON.stringify(o.body);
    const res = await this.send(method, withQuery(path, o.query), body, o.contentType ?? (method === "PATCH" ? "application/merge-patch+json" : "application/json"), o.signal);
    const text = await readAll(res);
    return { status: res.statusCode ?? 0, text };
  }

  /**
   * Opens a watch; `onEvent` gets each event's type and object as they arrive. `done` is called
   * once: with no error after a clean end or abort, with a KubeApiError for a refused watch, or with
   * the transport error. Aborting `signal` before the answer makes the call reject.
   */
  async watch(path: string, query: Query, onEvent: (type: string, obj: any) => void, done: (err?: unknown) => void, signal?: AbortSignal): Promise<WatchHandle> {
    const controller = new AbortController();
    // `signal` aborts the opening too (an answer that never comes); the handle aborts an open watch.
    if (signal?.aborted) controller.abort();
    else signal?.addEventListener("abort", () => controller.abort(), { once: true });
    let finished = false;
    const finish = (err?: unknown) => {
      if (finished) return;
      finished = true;
      done(controller.signal.aborted ? undefined : err);
    };
    const res = await this.send("GET", withQuery(path, { ...query, watch: true }), undefined, undefined, controller.signal);
    const status = res.statusCode ?? 0;
    if (status !== 200) {
      const text = await readAll(res).catch(() => "");
      throw new KubeApiError(status, text, `watch ${path}`);
    }
    // Lines are found in the raw bytes and only each line is decoded, straight into the string
    // JSON.parse reads: no decoded copy of every chunk, no concatenation to flatten. A newline byte
    // never occurs inside a UTF-8 multi-byte sequence, so splitting bytes at it is exact.
    // The parts of a line not yet complete; joined once when its newline arrives (joining on every
    // chunk would copy a long line's head again and again).
    let rest: Buffer[] = [];
    res.on("data", (chunk: Buffer) => {
      let buf = chunk;
      let from = 0;
      if (rest.length > 0) {
        const nl = chunk.indexOf(10);
        if (nl < 0) {
          rest.push(Buffer.from(chunk));
          return;
        }
        buf = Buffer.concat([...rest, chunk.subarray(0, nl + 1)]);
        rest = [];
        if (!this.onLine(buf, 0, buf.length - 1, onEvent, res, finish) || finished) return;
        buf = chunk;
        from = nl + 1;
      }
      let nl: number;
      while ((nl = buf.indexOf(10, from)) >= 0) {
        const start = from;
        from = nl + 1;
        if (!this.onLine(buf, start, nl, onEvent, res, finish) || finished) return;
      }
      // A partial line is copied: the chunk's memory is not kept alive for its tail.
      if (from < buf.length) rest = [Buffer.from(buf.subarray(from))];
    });
    res.on("end", () => finish());
    res.on("error", (err) => finish(err));
    res.on("close", () => finish(res.complete ? undefined : new Error("watch connection closed")));
    return { abort: () => (controller.abort(), res.destroy(), finish()) };
  }

  /** Parses one watch line (bytes [start, end)) and hands on its event; false if it is not JSON. */
  private onLine(buf: Buffer, start: number, end: number, onEvent: (type: string, obj: any) => void, res: http.IncomingMessage, finish: (err?: unknown) => void): boolean {
    let event: { type?: string; object?: unknown };
    try {
      event = JSON.parse(buf.toString("utf8", start, end));
    } catch (err) {
      // Blank lines (keep-alives) are skipped; anything else that is not JSON ends the watch.
      if (buf.subarray(start, end).toString("utf8").trim() === "") return true;
      res.destroy();
      finish(err);
      return false;
    }
    onEvent(event.type ?? "", event.object);
    return true;
  }

  private async headers(): Promise<Record<string, string>> {
    const now = Date.now();
    if (this.auth && now - this.auth.atMs < AUTH_REUSE_MS) return this.auth.headers;
    const opts: Record<string, any> = { headers: {} };
    await this.kc.applyToHTTPSOptions(opts);
    if (!this.agent) {
      // A proxy agent (client-node made one for a proxy-url) is kept; otherwise one keep-alive agent.
      const proxy = this.kc.getCurrentCluster()?.proxyUrl;
      if (proxy && opts.agent) this.agent = opts.agent as Agent;
      else {
        const tls: Record<string, unknown> = {};
        for (const k of TLS_OPTIONS) if (opts[k] !== undefined) tls[k] = opts[k];
        this.agent = new this.transport.Agent({ ...tls, keepAlive: true, maxSockets: this.maxSockets });
      }
    }
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(opts.headers as Record<string, unknown>)) if (v !== undefined) headers[k] = String(v);
    if (opts.auth) headers.Authorization = `Basic ${Buffer.from(String(opts.auth)).toString("base64")}`;
    this.auth = { headers, atMs: now };
    return headers;
  }

  private async send(method: string, path: string, body: string | undefined, contentType: string | undefined, signal?: AbortSignal): Promise<http.IncomingMessage> {
    const auth = await this.headers();
    return new Promise((resolve, reject) => {
      const headers: http.OutgoingHttpHeaders = { ...auth, accept: "application/json" };
      if (body !== undefined) {
        headers["content-type"] = contentType;
        headers["content-length"] = Buffer.byteLength(body);
      }
      const req = this.transport.request({ ...this.base, path: this.prefix + path, method, headers, agent: this.agent, signal }, resolve);
      req.on("error", reject);
      req.end(body);
    });
  }
}

function readAll(res: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on("data", (c: Buffer) => chunks.push(c));
    res.on("error", reject);
    res.on("end", () => {
      if (!res.complete) reject(new Error("API server response ended early"));
      else resolve((chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString("utf8"));
    });
  });
}
