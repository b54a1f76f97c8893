// How a Lockstep process reaches the API server without loading client-node's module graph: that
// graph (every generated API and model, ~21 MB of source) costs about 70 MiB of resident memory in
// each process, whichever of its classes is used. A service needs only the server URL, TLS
// settings and auth headers, which `KubeConfigLike` describes; client-node's own KubeConfig
// satisfies it (tests and tools pass theirs), and `loadKubeAccess` builds a light one for the
// common cases: in-cluster service account, or a JSON kubeconfig with token / client certificate /
// basic auth. Anything else (YAML files, exec plugins, auth providers, proxies, merged KUBECONFIG
// lists) is handed to client-node's KubeConfig, loaded on demand, so behaviour matches it exactly.
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, dirname, isAbsolute, join } from "node:path";
import { newClusters, newContexts, newUsers, type Cluster, type User } from "@kubernetes/client-node/dist/config_types.js";

/** The part of a KubeConfig Lockstep's HTTP client uses; client-node's KubeConfig satisfies it. */
export interface KubeConfigLike {
  getCurrentCluster(): Pick<Cluster, "server" | "skipTLSVerify" | "proxyUrl"> | null;
  /** Fills TLS options (ca, cert, key, rejectUnauthorized, servername), `headers` and `auth`. */
  applyToHTTPSOptions(opts: any): Promise<void>;
}

const SERVICE_ACCOUNT = "/var/run/secrets/kubernetes.io/serviceaccount";
/** A projected service-account token rotates; re-read it this often (client-go does the same). */
const TOKEN_FILE_REREAD_MS = 60_000;

const fileOrData = (file: string | undefined, data: string | undefined): Buffer | undefined =>
  file ? readFileSync(file) : data ? Buffer.from(data, "base64") : undefined;

/** A kubeconfig reduced to one cluster and one user whose auth needs no plugin. */
export class LiteKubeConfig implements KubeConfigLike {
  private token: { value: string; readAt: number } | undefined;

  constructor(
    readonly cluster: Cluster,
    readonly user: User & { tokenFile?: string },
  ) {}

  getCurrentCluster(): Cluster {
    return this.cluster;
  }

  async applyToHTTPSOptions(opts: Record<string, any>): Promise<void> {
    const { cluster, user } = this;
    if (cluster.server.startsWith("http:") && !cluster.skipTLSVerify) throw new Error("HTTP protocol is not allowed when skipTLSVerify is not set or false");
    if (cluster.skipTLSVerify) opts.rejectUnauthorized = false;
    if (cluster.tlsServerName) opts.servername = cluster.tlsServerName;
    const ca = fileOrData(cluster.caFile, cluster.caData);
    if (ca) opts.ca = ca;
    const cert = fileOrData(user.certFile, user.certData);
    if (cert) opts.cert = cert;
    const key = fileOrData(user.keyFile, user.keyData);
    if (key) opts.key = key;
    opts.headers ??= {};
    if (user.impersonateUser) opts.headers["Impersonate-User"] = user.impersonateUser;
    if (user.username) opts.auth = `${user.username}:${user.password ?? ""}`;
    const token = this.currentToken();
    if (token) opts.headers.Authorization = `Bearer ${token}`;
  }

  private currentToken(): string | undefined {
    if (this.user.token) return this.user.token;
    const file = this.user.tokenFile;
    if (!file) return undefined;
    const now = Date.now();
    if (!this.token || now - this.token.readAt > TOKEN_FILE_REREAD_MS) this.token = { value: readFileSync(file, "utf8").trim(), readAt: now };
    return this.token.value;
  }
}

/** A light config for a plain-HTTP API server such as kube-sim (what kubeConfigForUrl describes). */
export function kubeAccessForUrl(server: string, token?: string): LiteKubeConfig {
  return new LiteKubeConfig({ name: "lockstep", server: server.replace(/\/$/, ""), skipTLSVerify: true }, { name: "lockstep", token });
}

/** The in-cluster service-account config (`root` moves the secret files, for tests). */
export function inClusterAccess(env: NodeJS.ProcessEnv = process.env, root = SERVICE_ACCOUNT): LiteKubeConfig {
  const host = env.KUBERNETES_SERVICE_HOST ?? "";
  const port = env.KUBERNETES_SERVICE_PORT ?? "443";
  const scheme = port === "80" || port === "8080" || port === "8001" ? "http" : "https";
  const h = host.includes(":") ? `[${host}]` : host;
  return new LiteKubeConfig({ name: "inCluster", server: `${scheme}://${h}:${port}`, caFile: `${root}/ca.crt`, skipTLSVerify: false }, { name: "inClusterUser", tokenFile: `${root}/token` });
}

/**
 * The light config for a kubeconfig document already parsed from JSON, or undefined when it needs
 * more than LiteKubeConfig does (then client-node's KubeConfig handles it).
 */
export function liteFromKubeconfig(doc: any, dir: string): LiteKubeConfig | undefined {
  if (!doc || typeof doc !== "object") return undefined;
  const contexts = newContexts(doc.contexts);
  const context = contexts.find((c) => c.name === doc["current-context"]);
  if (!context) return undefined;
  const cluster = newClusters(doc.clusters).find((c) => c.name === context.cluster);
  const user = newUsers(doc.users).find((u) => u.name === context.user) ?? { name: "" };
  if (!cluster || cluster.proxyUrl || user.exec || user.authProvider) return undefined;
  const abs = (f: string | undefined) => (f && !isAbsolute(f) ? join(dir, f) : f);
  return new LiteKubeConfig({ ...cluster, caFile: abs(cluster.caFile) }, { ...user, certFile: abs(user.certFile), keyFile: abs(user.keyFile) });
}

function liteFromFile(file: string): LiteKubeConfig | undefined {
  const text = readFileSync(file, "utf8");
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return undefined; // YAML: client-node parses it
  }
  return liteFromKubeconfig(doc, dirname(file));
}

/**
 * The API server access for a service: an explicit file, else in-cluster service-account config
 * when running in a pod, else $KUBECONFIG / ~/.kube/config — the same rules as loadKubeConfig,
 * without client-node's module graph whenever LiteKubeConfig covers the config.
 */
export async function loadKubeAccess(file?: string, env: NodeJS.ProcessEnv = process.env): Promise<KubeConfigLike> {
  if (!file && env.KUBERNETES_SERVICE_HOST && !env.KUBECONFIG) return inClusterAccess(env);
  const files = file ? [file] : (env.KUBECONFIG ?? "").split(delimiter).filter((f) => f);
  const single = files.length === 1 ? files[0]! : files.length === 0 && !file ? join(env.HOME ?? homedir(), ".kube", "config") : undefined;
  let lite: LiteKubeConfig | undefined;
  try {
    lite = single ? liteFromFile(single) : undefined;
  } catch {
    lite = undefined; // missing or unreadable: client-node's rules decide (and report)
  }
  if (lite) return lite;
  const { KubeConfig } = await import("@kubernetes/client-node");
  const kc = new KubeConfig();
  if (file) kc.loadFromFile(file);
  else kc.loadFromDefault();
  return kc;
}
