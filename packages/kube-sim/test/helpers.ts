// Test helpers: the server under test (kube-sim, or a real kube-apiserver given by the environment), raw HTTP
// against it and line-by-line watch reading.
import { readFileSync, writeFileSync } from "node:fs";
import { request as httpRequest, type RequestOptions } from "node:http";
import { request as httpsRequest } from "node:https";
import * as k8s from "@kubernetes/client-node";
import { crdManifests, startKubeSim, type CrdSet, type KubeSim, type KubeSimOptions } from "../src/index.js";

/** Where requests go: a URL and an optional bearer token (a KubeSim is one). */
export interface Endpoint {
  readonly url: string;
  readonly token?: string | undefined;
}

export interface RealServer extends Endpoint {
  /** PEM of the CA that signed the server's certificate (https). */
  readonly ca?: string;
  /** From GET /version, e.g. 1 and 20. */
  readonly major: number;
  readonly minor: number;
  readonly gitVersion: string;
}

/**
 * The real API server the conformance suite runs against instead of kube-sim, from the environment:
 * KUBE_CONFORMANCE_KUBECONFIG=<path> (its current context), or KUBE_CONFORMANCE_SERVER=<url> with
 * KUBE_CONFORMANCE_TOKEN and KUBE_CONFORMANCE_CA=<PEM file> (optional). Unset → kube-sim.
 * `npm run test:oracle` sets it for the kube-apiserver oracle (scripts/oracle).
 */
async function realServerFromEnv(env = process.env): Promise<RealServer | undefined> {
  let url: string | undefined;
  let token: string | undefined;
  let ca: string | undefined;
  if (env.KUBE_CONFORMANCE_KUBECONFIG) {
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(env.KUBE_CONFORMANCE_KUBECONFIG);
    const cluster = kc.getCurrentCluster();
    if (!cluster) throw new Error(`KUBE_CONFORMANCE_KUBECONFIG ${env.KUBE_CONFORMANCE_KUBECONFIG}: no current cluster`);
    url = cluster.server;
    token = kc.getCurrentUser()?.token;
    ca = cluster.caData ? Buffer.from(cluster.caData, "base64").toString("utf8") : cluster.caFile ? readFileSync(cluster.caFile, "utf8") : undefined;
  } else if (env.KUBE_CONFORMANCE_SERVER) {
    url = env.KUBE_CONFORMANCE_SERVER;
    token = env.KUBE_CONFORMANCE_TOKEN;
    ca = env.KUBE_CONFORMANCE_CA ? readFileSync(env.KUBE_CONFORMANCE_CA, "utf8") : undefined;
  } else {
    return undefined;
  }
  url = url.replace(/\/+$/, "");
  const version = await call({ url, token, ca } as Endpoint, "GET", "/version");
  if (version.status !== 200) throw new Error(`conformance server ${url}: GET /version answered ${version.status} ${version.text}`);
  const minor = Number.parseInt(String(version.json.minor), 10);
  return { url, token, ca, major: Number(version.json.major), minor, gitVersion: String(version.json.gitVersion) };
}

// send() reads this one: `realServer` itself cannot be read while its top-level await is still running.
let realServerFound: RealServer | undefined;
export const realServer: RealServer | undefined = (realServerFound = await realServerFromEnv());
/** True when the suite runs against a real kube-apiserver. */
export const onRealServer = realServer !== undefined;

/** True on a real server older than 1.`minor` (features it does not serve yet; current Kubernetes wins). */
export function realServerBefore(minor: number): boolean {
  return realServer !== undefined && realServer.major === 1 && realServer.minor < minor;
}

/** Skip reasons, one per kind of kube-sim-only test (see kube-sim's README, "Known differences"). */
export const SIM_ONLY = {
  faults: "kube-sim only: fault injection and sim control (drop watches, compaction, continue expiry)",
  store: "kube-sim only: reads or writes kube-sim's store in process",
  options: "kube-sim only: needs a kube-sim started with its own options (controllers, seed, clock, history limit, users)",
  controllers: "kube-sim only: needs controllers (disruption, namespace, GC) that a bare kube-apiserver has not (no controller-manager)",
} as const;

/**
 * The server a conformance test file runs against: a kube-sim started with `options`, or the real server from
 * the environment, shaped as a KubeSim so tests read the same (url, token, stop). On the real server the
 * sim-only members (store, faults, admission, ...) throw: tests that need them skip there with a SIM_ONLY reason.
 * The real server is shared by every file and never stopped here, so tests use their own names.
 */
export async function conformanceServer(options: KubeSimOptions = {}): Promise<KubeSim> {
  if (!realServer) return startKubeSim(options);
  const real = realServer;
  for (const set of [options.crds ?? []].flat()) await installCrdsOverHttp(real, set);
  const base: Partial<KubeSim> & { ca?: string } = {
    url: real.url,
    token: real.token,
    ca: real.ca,
    port: Number(new URL(real.url).port),
    kubeconfig: () => realKubeconfig(real),
    writeKubeconfig: async (path: string) => writeFileSync(path, realKubeconfig(real), { mode: 0o600 }),
    stop: async () => {},
  };
  return new Proxy(base as KubeSim, {
    get(target, prop, receiver) {
      if (prop in target || typeof prop === "symbol" || prop === "then") return Reflect.get(target, prop, receiver);
      throw new Error(`kube-sim's ${String(prop)} used against the real server ${real.url}: skip this test there (SIM_ONLY)`);
    },
  });
}

function realKubeconfig(real: RealServer): string {
  const cluster = real.ca ? `certificate-authority-data: ${Buffer.from(real.ca).toString("base64")}` : "insecure-skip-tls-verify: true";
  return [
    "apiVersion: v1",
    "kind: Config",
    "clusters:",
    `- {name: conformance, cluster: {server: "${real.url}", ${cluster}}}`,
    "users:",
    `- {name: conformance, user: {token: "${real.token ?? ""}"}}`,
    "contexts:",
    "- {name: conformance, context: {cluster: conformance, user: conformance, namespace: default}}",
    "current-context: conformance",
    "",
  ].join("\n");
}

/** Creates a CRD set through the API (kept when present: the real server is shared) and waits until each is served. */
async function installCrdsOverHttp(ep: Endpoint, set: CrdSet): Promise<void> {
  const crds = crdManifests(set);
  for (const crd of crds) {
    const r = await call(ep, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd);
    if (r.status !== 201 && r.status !== 409) throw new Error(`installing CRD ${crd.metadata?.name}: ${r.status} ${r.text}`);
  }
  for (const crd of crds) {
    const { group, names, versions } = crd.spec as { group: string; names: { plural: string }; versions: Array<{ name: string; served: boolean }> };
    const version = versions.find((v) => v.served)!.name;
    await until(async () => (await call(ep, "GET", `/apis/${group}/${version}/${names.plural}`)).status === 200, `CRD ${crd.metadata?.name} served`);
  }
}

function send(ep: Endpoint, path: string, options: RequestOptions, onResponse: (res: import("node:http").IncomingMessage) => void) {
  const url = `${ep.url}${path}`;
  if (url.startsWith("https:")) {
    const ca = (ep as RealServer).ca ?? (realServerFound && ep.url === realServerFound.url ? realServerFound.ca : undefined);
    return httpsRequest(url, { ...options, ...(ca ? { ca } : { rejectUnauthorized: false }) }, onResponse);
  }
  return httpRequest(url, options, onResponse);
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: any;
}

export function call(sim: Endpoint, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body);
    const h: Record<string, string> = { accept: "application/json", ...headers };
    if (payload !== undefined) h["content-type"] ??= "application/json";
    if (sim.token) h.authorization ??= `Bearer ${sim.token}`;
    const req = send(sim, path, { method, headers: h }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let json: any;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
    });
    req.on("error", reject);
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}

export interface WatchEvent {
  type: string;
  object: any;
}

/** An open watch: collects events; `next(n)` waits for n more, `ended` resolves when the server closes. */
export class RawWatch {
  readonly events: WatchEvent[] = [];
  status = 0;
  ended: Promise<void>;
  private waiters: Array<() => void> = [];
  private abort: () => void = () => {};

  constructor(sim: Endpoint, path: string) {
    this.ended = new Promise((resolveEnd, rejectEnd) => {
      const headers: Record<string, string> = {};
      if (sim.token) headers.authorization = `Bearer ${sim.token}`;
      const req = send(sim, path, { headers }, (res) => {
        this.status = res.statusCode ?? 0;
        let buf = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => {
          buf += c;
          let i: number;
          while ((i = buf.indexOf("\n")) >= 0) {
            const line = buf.slice(0, i);
            buf = buf.slice(i + 1);
            if (line.trim()) this.events.push(JSON.parse(line));
          }
          this.wake();
        });
        res.on("end", () => {
          if (buf.trim()) this.events.push(JSON.parse(buf));
          this.wake();
          resolveEnd();
        });
        res.on("error", () => resolveEnd());
      });
      req.on("error", (e) => (this.status ? resolveEnd() : rejectEnd(e)));
      req.end();
      this.abort = () => req.destroy();
    });
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  /** Waits until at least `count` events have arrived in total. */
  async waitFor(count: number): Promise<WatchEvent[]> {
    while (this.events.length < count) {
      await new Promise<void>((r) => this.waiters.push(r));
    }
    return this.events;
  }

  close(): void {
    this.abort();
  }
}

/**
 * Runs `check` once on kube-sim, where RBAC and other writes take effect at once; on a real server, whose
 * authorizer reads its informer cache, retries it until it passes (README, "Known differences").
 */
export async function settled<T>(check: () => Promise<T>, limitMs = 10_000): Promise<T> {
  if (!onRealServer) return check();
  const start = Date.now();
  for (;;) {
    try {
      return await check();
    } catch (e) {
      if (Date.now() - start > limitMs) throw e;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

/** Waits for a condition driven by asynchronous events, polling briefly (no timing assertions). */
export async function until(cond: () => boolean | Promise<boolean>, what: string, limitMs = 15_000): Promise<void> {
  const start = Date.now();
  while (!(await cond())) {
    if (Date.now() - start > limitMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** What a client-node call failed with: the status code and the Status body (parsed). */
export async function apiError(p: Promise<unknown>): Promise<{ code: number; body: any }> {
  try {
    await p;
  } catch (e) {
    if (e instanceof k8s.ApiException) return { code: e.code, body: typeof e.body === "string" && e.body ? JSON.parse(e.body) : e.body };
    throw e;
  }
  throw new Error("expected an ApiException");
}
