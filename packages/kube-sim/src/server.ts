// The kube-sim process: a node:http server on loopback wiring auth, faults, discovery, the admin
// endpoints and the resource API around one Store.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttpsServer, type Server as HttpsServer } from "node:https";
import type { Socket } from "node:net";
import { Admission, type AdmissionCall, type AdmissionOptions } from "./admission.js";
import { handleResource, verbOf, type ApiContext } from "./api.js";
import { Authenticator, bearerToken, staticUsers, ADMIN_USERNAME, AUTHENTICATED_GROUP, type StaticUser } from "./authn.js";
import { bootstrapPolicy, forbiddenFor, requestAttributes, type AuthorizationMode } from "./authz.js";
import { builtinTypes } from "./builtins.js";
import { installGarbageCollector, installNamespaceController } from "./controllers.js";
import { installCrdController } from "./crds.js";
import { DisruptionController } from "./disruption.js";
import { apiGroup, apiGroupList, apiResourceList, apiVersions, SERVER_VERSION } from "./discovery.js";
import { failure, KubeError, notFoundPath, unauthorized, internalError } from "./errors.js";
import { Faults, parseFaultSpec, mergeFaults, type FaultConfig } from "./faults.js";
import { acceptsJson, decodeBody, readBody, sendError, sendJson, sendText, sleep } from "./http-util.js";
import { kubeconfigYaml, writeKubeconfig } from "./kubeconfig.js";
import { dumpList, dumpToFile, loadFiles, parseObjects, seedObjects } from "./load.js";
import { timestamp } from "./meta.js";
import { openApiV2, openApiV3Document, openApiV3Root } from "./openapi.js";
import { installCrdSet, type CrdSet } from "./openshift.js";
import { seededRng } from "./rng.js";
import { authorize, MASTERS_GROUP, type UserInfo } from "./rbac.js";
import { storeRbacSource, storeUidLookup, tokenRequest } from "./reviews.js";
import { parsePath } from "./router.js";
import { Store } from "./store.js";
import type { KubeObject } from "./types.js";
import type { WatchStream } from "./watch-stream.js";

export interface KubeSimOptions {
  /** Port on 127.0.0.1; 0 (default) picks a free one. */
  port?: number;
  host?: string;
  /**
   * When set, every request needs `Authorization: Bearer <token>` (401 otherwise); the token
   * authenticates as `kube-sim-admin` in `system:masters`.
   */
  token?: string;
  /**
   * Static users, like kube-apiserver's --token-auth-file: each token authenticates as its user
   * (plus `system:authenticated`). With any `token` or `users`, unknown or missing bearer tokens
   * get 401; ServiceAccount tokens from the TokenRequest API are accepted too.
   */
  users?: StaticUser[];
  /**
   * "AlwaysAllow" (default): every authenticated request is allowed. "RBAC": requests are
   * authorized against the stored RBAC objects like kube-apiserver's --authorization-mode=RBAC
   * (403 Forbidden otherwise), and the bootstrap roles (cluster-admin for system:masters,
   * system:discovery, system:basic-user, system:public-info-viewer, system:auth-delegator) are seeded.
   */
  authorization?: AuthorizationMode;
  /** Watch history kept per type; older resourceVersions get 410. Default 10,000 events. */
  historyLimit?: number;
  /** Continue-token lifetime. Default 5 minutes. */
  continueTtlMs?: number;
  /** Faults at start: a config object and/or `--fault` spec strings. */
  faults?: FaultConfig | string[];
  /** CRD sets to install at start ("openshift" includes the lockstep.io kinds). */
  crds?: CrdSet | CrdSet[];
  /** Objects to seed, and YAML/JSON files to load, at start. */
  objects?: KubeObject[];
  load?: string[];
  /** Optional controllers: PDB status (default on), namespace deletion and ownerReference GC (default off). */
  controllers?: { disruption?: boolean; namespace?: boolean; gc?: boolean };
  /** Close every watch after this many seconds unless the client asked for a timeout. Default: never. */
  watchTimeoutSeconds?: number;
  /** Interval of BOOKMARK events on watches that allow them. Default 10 s. */
  bookmarkIntervalMs?: number;
  /** Per-watch output buffer bound; a slower consumer is cut off (it relists). Default 16 MiB. */
  watchBufferBytes?: number;
  /** Virtual clock for timestamps, and a seed for uids/generateName (reproducible runs). */
  clock?: () => Date;
  seed?: number;
  /**
   * Where `clientConfig.service` admission webhooks listen (there is no cluster DNS): a function of
   * the service reference returning a base URL such as `https://127.0.0.1:8443`; the service's
   * path is appended and the TLS server name stays `<name>.<namespace>.svc`.
   */
  webhookServiceResolver?: AdmissionOptions["webhookServiceResolver"];
  /** The same as a map, `"namespace/name"` or `"namespace/name:port"` → base URL. */
  webhookServices?: AdmissionOptions["webhookServices"];
  /**
   * Serve HTTPS with this certificate and key (PEM; `generateServingTls()` makes a set); `ca` goes
   * into the kubeconfig as certificate-authority-data. Default: plain HTTP. Real kubectl and
   * client-go send bearer tokens only over HTTPS, so use it whenever `token` or `users` are set and
   * such clients connect.
   */
  tls?: { cert: string | Buffer; key: string | Buffer; ca: string | Buffer };
}

/** The validating admission webhooks kube-sim calls, and a record of every call. */
export interface KubeSimAdmission {
  /** Every webhook call (the last 10,000), oldest first. */
  readonly calls: AdmissionCall[];
  /** The calls that refused a request: denials, and call errors under failurePolicy Fail. */
  denials(): AdmissionCall[];
  clear(): void;
  /** Called after every webhook call. */
  onCall?: (c: AdmissionCall) => void;
}

export interface KubeSim {
  readonly url: string;
  readonly port: number;
  readonly token: string | undefined;
  /** PEM of the CA clients verify an HTTPS kube-sim against; undefined over plain HTTP. */
  readonly ca: string | undefined;
  /** The store: the same write path as the HTTP API (seeding, assertions, direct writes). */
  readonly store: Store;
  /** Fault injection, changeable at run time. */
  readonly faults: Faults;
  /** Validating admission webhooks: the calls made and the refusals. */
  readonly admission: KubeSimAdmission;
  kubeconfig(): string;
  writeKubeconfig(path: string): Promise<void>;
  /** Seeds objects (from YAML/JSON text, objects or files). */
  load(input: { text?: string; objects?: KubeObject[]; files?: string[] }): Promise<number>;
  dump(path?: string): Promise<KubeObject>;
  installCrds(set: CrdSet): number;
  /**
   * Mints a ServiceAccount token as `POST …/serviceaccounts/{name}/token` would (the ServiceAccount
   * must exist); default audience the API server's, default lifetime 1 h (minimum 10 min).
   */
  serviceAccountToken(namespace: string, name: string, opts?: { audiences?: string[]; expirationSeconds?: number }): string;
  /** Ends every open watch stream now (clients reconnect from their last RV). */
  dropWatches(): number;
  /** Forgets watch history so the next watch from an older RV gets 410 (one resource or all). */
  compact(group?: string, plural?: string): void;
  /** Makes every outstanding list continue token expire. */
  expireContinueTokens(): void;
  stop(): Promise<void>;
}

function normaliseFaults(f: KubeSimOptions["faults"]): FaultConfig {
  if (!f) return {};
  if (Array.isArray(f)) return f.map(parseFaultSpec).reduce(mergeFaults, {});
  return f;
}

export async function startKubeSim(opts: KubeSimOptions = {}): Promise<KubeSim> {
  const host = opts.host ?? "127.0.0.1";
  if (opts.authorization !== undefined && opts.authorization !== "RBAC" && opts.authorization !== "AlwaysAllow")
    throw new Error(`kube-sim: unknown authorization mode "${String(opts.authorization)}" (AlwaysAllow, RBAC)`);
  const rbacMode = opts.authorization === "RBAC";
  const users = staticUsers(opts.token, opts.users);
  const store = new Store({
    historyLimit: opts.historyLimit,
    clock: opts.clock,
    rng: opts.seed !== undefined ? seededRng(opts.seed) : undefined,
    continueTtlMs: opts.continueTtlMs,
  });
  for (const t of builtinTypes()) store.registry.add(t);
  const now = () => timestamp(store.clock());
  installCrdController(store, now);
  const controllers = { disruption: true, namespace: false, gc: false, ...opts.controllers };
  const disruption = controllers.disruption ? new DisruptionController(store, now) : undefined;
  if (controllers.namespace) installNamespaceController(store);
  if (controllers.gc) installGarbageCollector(store);
  for (const ns of ["default", "kube-system", "kube-public", "kube-node-lease"]) store.ensureNamespace(ns);

  const authn = new Authenticator(users, storeUidLookup(store), store.clock);
  const faults = new Faults(normaliseFaults(opts.faults));
  const watches = new Set<WatchStream>();
  const ctx: ApiContext = {
    store,
    faults,
    disruption,
    watches,
    watchTimeoutSeconds: opts.watchTimeoutSeconds,
    watchBufferBytes: opts.watchBufferBytes ?? 16 * 1024 * 1024,
    reviews: { store, authn },
    admission: new Admission(store, { webhookServiceResolver: opts.webhookServiceResolver, webhookServices: opts.webhookServices }),
  };
  const sockets = new Set<Socket>();
  let port = opts.port ?? 0;
  let stopped = false;

  const dropWatches = (): number => {
    const n = watches.size;
    for (const w of [...watches]) w.end();
    return n;
  };

  if (rbacMode) for (const o of bootstrapPolicy()) store.seed(o);
  const rbacSource = storeRbacSource(store);

  const crdSets = opts.crds === undefined ? [] : Array.isArray(opts.crds) ? opts.crds : [opts.crds];
  for (const s of crdSets) installCrdSet(store, s);
  if (opts.objects) seedObjects(store, opts.objects);
  if (opts.load?.length) await loadFiles(store, opts.load);

  const sim: KubeSim = {
    url: "",
    port: 0,
    token: opts.token ?? opts.users?.[0]?.token,
    ca: opts.tls ? String(opts.tls.ca) : undefined,
    store,
    faults,
    admission: ctx.admission!,
    kubeconfig: () => kubeconfigYaml(sim),
    writeKubeconfig: (path) => writeKubeconfig(sim, path),
    async load(input) {
      const objs: KubeObject[] = [...(input.objects ?? [])];
      if (input.text) objs.push(...parseObjects(input.text));
      let n = seedObjects(store, objs);
      if (input.files?.length) n += await loadFiles(store, input.files);
      return n;
    },
    async dump(path) {
      if (path) await dumpToFile(store, path);
      return dumpList(store);
    },
    installCrds: (set) => installCrdSet(store, set),
    serviceAccountToken: (namespace, name, o = {}) =>
      (tokenRequest(ctx.reviews, namespace, name, { spec: { audiences: o.audiences, expirationSeconds: o.expirationSeconds } }).status as { token: string }).token,
    dropWatches,
    compact(group, plural) {
      const t = group !== undefined && plural ? store.registry.get(group, plural) : undefined;
      store.compact(t);
    },
    expireContinueTokens: () => store.expireContinueTokens(),
    stop: async () => {
      stopped = true;
      clearInterval(bookmarkTimer);
      if (dropTimer) clearInterval(dropTimer);
      if (reopenTimer) clearTimeout(reopenTimer);
      dropWatches();
      await closeServer();
    },
  };

  const handler = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    try {
      await handle(req, res);
    } catch (err) {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      if (err instanceof KubeError) sendError(res, err);
      else sendError(res, internalError(`Internal error occurred: ${(err as Error)?.message ?? String(err)}`, "InternalError"));
    }
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const raw = req.url ?? "/";
    const qi = raw.indexOf("?");
    const url = { pathname: qi < 0 ? raw : raw.slice(0, qi), searchParams: new URLSearchParams(qi < 0 ? "" : raw.slice(qi + 1)) };
    const route = parsePath(url.pathname);
    if (route.kind === "plain" && ["/healthz", "/livez", "/readyz"].includes(route.path)) return sendText(res, 200, "ok");
    const user = requestUser(req.headers.authorization);
    if (route.kind === "admin") return admin(req, res, route.path, url.searchParams);
    if (rbacMode) {
      const method = req.method ?? "GET";
      const attrs = requestAttributes(user, method, url.pathname, route, route.kind === "resource" ? verbOf(method, route, url.searchParams) : "");
      const decision = authorize(rbacSource, attrs);
      if (!decision.allowed) {
        await readBody(req).catch(() => undefined);
        throw forbiddenFor(attrs, decision);
      }
    }
    if (!acceptsJson(req.headers.accept))
      throw new KubeError(failure(406, "only the following media types are accepted: application/json, application/yaml", "NotAcceptable"));

    let verb = "get";
    let resourceType = undefined as ReturnType<typeof store.registry.resolve>;
    if (route.kind === "resource") {
      resourceType = store.registry.resolve(route.group, route.version, route.plural);
      verb = verbOf(req.method ?? "GET", route, url.searchParams);
    }
    const delay = faults.latency();
    if (delay > 0) await sleep(delay);
    const injected = faults.errorFor({
      verb,
      resource: resourceType,
      subresource: route.kind === "resource" ? route.subresource : undefined,
      name: route.kind === "resource" ? route.name : undefined,
    });
    if (injected) {
      await readBody(req).catch(() => undefined);
      throw injected;
    }

    switch (route.kind) {
      case "plain":
        if (route.path === "/version") return sendJson(res, 200, SERVER_VERSION);
        if (route.path === "/openapi/v2") return sendJson(res, 200, openApiV2(store.registry));
        if (route.path === "/openapi/v3" || route.path === "/openapi/v3/") return sendJson(res, 200, openApiV3Root(store.registry));
        if (route.path.startsWith("/openapi/v3/")) {
          const doc = openApiV3Document(store.registry, route.path.slice("/openapi/v3/".length));
          if (doc === undefined) throw notFoundPath();
          return sendJson(res, 200, doc);
        }
        throw notFoundPath();
      case "discovery-root":
        return sendJson(res, 200, route.core ? apiVersions(`${host}:${port}`) : apiGroupList(store.registry));
      case "discovery-group": {
        const g = apiGroup(store.registry, route.group);
        if (!g) throw notFoundPath();
        return sendJson(res, 200, g);
      }
      case "discovery-version": {
        const d = apiResourceList(store.registry, route.group, route.version);
        if (!d) throw notFoundPath();
        return sendJson(res, 200, d);
      }
      case "resource":
        if (!resourceType) throw notFoundPath();
        return handleResource(ctx, req, res, route, resourceType, url.searchParams, user);
      default:
        throw notFoundPath();
    }
  };

  // Who a request acts as: the user of its bearer token; without auth configured, anything else
  // acts as the admin (everything allowed, as before users existed).
  const requestUser = (authorization: string | undefined): UserInfo => {
    const token = bearerToken(authorization);
    const result = token === undefined ? undefined : authn.authenticate(token);
    if (result?.authenticated) return result.user;
    if (authn.required) throw unauthorized();
    return { username: ADMIN_USERNAME, groups: [MASTERS_GROUP, AUTHENTICATED_GROUP] };
  };

  const admin = async (req: IncomingMessage, res: ServerResponse, path: string, q: URLSearchParams): Promise<void> => {
    const method = req.method ?? "GET";
    const body = method === "GET" ? undefined : decodeBody(await readBody(req), req.headers["content-type"]);
    try {
      switch (`${method} ${path}`) {
        case "GET /_sim/faults":
          return sendJson(res, 200, faults.config);
        case "POST /_sim/faults":
        case "PUT /_sim/faults": {
          const b = (body ?? {}) as { specs?: string[] } & FaultConfig;
          const cfg = mergeFaults({ ...b, specs: undefined } as FaultConfig, normaliseFaults(b.specs ?? []));
          delete (cfg as { specs?: unknown }).specs;
          if (method === "PUT" || q.get("replace") === "true") faults.set(cfg);
          else faults.add(cfg);
          return sendJson(res, 200, faults.config);
        }
        case "DELETE /_sim/faults":
          faults.clear();
          return sendJson(res, 200, faults.config);
        case "POST /_sim/drop-watches":
          return sendJson(res, 200, { dropped: dropWatches() });
        case "POST /_sim/compact":
          sim.compact(q.get("group") ?? undefined, q.get("resource") ?? undefined);
          return sendJson(res, 200, { resourceVersion: store.resourceVersion });
        case "POST /_sim/expire-continue":
          store.expireContinueTokens();
          return sendJson(res, 200, {});
        case "GET /_sim/dump":
          return sendJson(res, 200, dumpList(store));
        case "POST /_sim/load": {
          const items = Array.isArray(body) ? body : body === undefined ? [] : [body];
          const objs = items.flatMap((x) => parseObjects(JSON.stringify(x), "request body"));
          return sendJson(res, 200, { loaded: seedObjects(store, objs) });
        }
        case "GET /_sim/admission": {
          // Webhook calls for tests of a separate kube-sim process; `?requests=true` adds the reviews sent.
          const full = q.get("requests") === "true";
          const only = q.get("denials") === "true";
          const calls = (only ? ctx.admission!.denials() : ctx.admission!.calls).map((c) => (full ? c : { ...c, request: undefined }));
          return sendJson(res, 200, { calls });
        }
        case "DELETE /_sim/admission":
          ctx.admission!.clear();
          return sendJson(res, 200, { calls: [] });
        case "GET /_sim/stats":
          return sendJson(res, 200, {
            resourceVersion: store.resourceVersion,
            watches: watches.size,
            cpuMs: (process.cpuUsage().user + process.cpuUsage().system) / 1000,
            objects: Object.fromEntries(store.registry.all().map((t) => [t.group ? `${t.plural}.${t.group}` : t.plural, store.state(t).objects.size])),
          });
        default:
          throw notFoundPath();
      }
    } catch (err) {
      if (err instanceof KubeError) throw err;
      throw new KubeError(failure(400, (err as Error).message, "BadRequest"));
    }
  };

  // Outages in "refuse" mode close the listener so connections are refused, then reopen it.
  let reopenTimer: NodeJS.Timeout | undefined;
  let dropTimer: NodeJS.Timeout | undefined;
  let dropEvery = 0;
  faults.onChange = () => {
    if (faults.dropWatchesEveryMs !== dropEvery) {
      dropEvery = faults.dropWatchesEveryMs;
      if (dropTimer) clearInterval(dropTimer);
      dropTimer = dropEvery > 0 ? setInterval(dropWatches, dropEvery) : undefined;
      dropTimer?.unref();
    }
    if (faults.outage() === "refuse" && server.listening && !reopenTimer) {
      const wait = faults.outageRemainingMs();
      dropWatches();
      server.close();
      for (const s of sockets) s.destroy();
      reopenTimer = setTimeout(() => {
        reopenTimer = undefined;
        if (!stopped) server.listen(port, host);
      }, wait);
    }
  };

  const serverOptions = { keepAlive: true, requestTimeout: 0, headersTimeout: 60_000 };
  const onRequest = (req: IncomingMessage, res: ServerResponse) => void handler(req, res);
  const server: Server | HttpsServer = opts.tls
    ? createHttpsServer({ ...serverOptions, cert: opts.tls.cert, key: opts.tls.key }, onRequest)
    : createServer(serverOptions, onRequest);
  server.keepAliveTimeout = 65_000;
  server.on("connection", (s: Socket) => {
    s.setNoDelay(true);
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  const closeServer = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      if (!server.listening) return resolve();
      server.close(() => resolve());
    });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const addr = server.address();
  port = typeof addr === "object" && addr ? addr.port : port;
  (sim as { url: string }).url = `${opts.tls ? "https" : "http"}://${host.includes(":") ? `[${host}]` : host}:${port}`;
  (sim as { port: number }).port = port;

  const bookmarkTimer = setInterval(() => {
    for (const w of watches) if (w.bookmarks) w.bookmark();
  }, opts.bookmarkIntervalMs ?? 10_000);
  bookmarkTimer.unref();
  faults.onChange();
  return sim;
}
