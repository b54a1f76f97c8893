// How the CLI connects to Lockstep's gRPC services: TLS when a CA is configured, and the caller's
// credentials as `authorization: Bearer <token>` metadata — from --token, $LOCKSTEP_TOKEN, or the
// current user of the kubeconfig (the same identity kubectl uses; the lease-coordinator verifies it
// with a TokenReview).
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, join } from "node:path";
import { checkServerIdentity } from "node:tls";
import { credentials, Metadata, type ChannelCredentials } from "@grpc/grpc-js";
import { CliError, EXIT } from "./exit-codes.js";

/** Flags every command that calls a service accepts. */
export interface ConnectionFlags {
  token?: string;
  kubeconfig?: string;
}

function readPem(variable: string, env: NodeJS.ProcessEnv): Buffer | undefined {
  const file = env[variable];
  if (!file) return undefined;
  try {
    return readFileSync(file);
  } catch (err) {
    throw new CliError(EXIT.USAGE, `${variable}: cannot read ${file}: ${(err as Error).message}`);
  }
}

/**
 * TLS when LOCKSTEP_GRPC_CA (a PEM file, e.g. the chart's generated CA) or LOCKSTEP_GRPC_TLS=true
 * (the system's roots) is set, with a client certificate from LOCKSTEP_GRPC_CERT/KEY for mutual
 * TLS; plaintext otherwise. LOCKSTEP_GRPC_SERVER_NAME checks the server's certificate for that
 * name instead of the address dialled (through `kubectl port-forward`, 127.0.0.1 is dialled but
 * the certificate names the Service).
 */
export function channelCredentials(env: NodeJS.ProcessEnv = process.env): ChannelCredentials {
  const ca = readPem("LOCKSTEP_GRPC_CA", env);
  const cert = readPem("LOCKSTEP_GRPC_CERT", env);
  const key = readPem("LOCKSTEP_GRPC_KEY", env);
  if ((cert === undefined) !== (key === undefined)) throw new CliError(EXIT.USAGE, "LOCKSTEP_GRPC_CERT and LOCKSTEP_GRPC_KEY go together");
  if (ca === undefined && cert === undefined && env.LOCKSTEP_GRPC_TLS !== "true") return credentials.createInsecure();
  const name = env.LOCKSTEP_GRPC_SERVER_NAME;
  return credentials.createSsl(ca ?? null, key ?? null, cert ?? null, name ? { checkServerIdentity: (_host, peer) => checkServerIdentity(name, peer) } : undefined);
}

function defaultKubeconfigExists(env: NodeJS.ProcessEnv): boolean {
  const files = (env.KUBECONFIG ?? "").split(delimiter).filter((f) => f);
  return files.length > 0 ? files.some((f) => existsSync(f)) : existsSync(join(env.HOME ?? homedir(), ".kube", "config"));
}

/** The bearer token to send, or undefined when the caller has none (a server with LEASE_AUTH=none needs none). */
export async function callerToken(flags: ConnectionFlags, env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  if (flags.token) return flags.token;
  if (env.LOCKSTEP_TOKEN) return env.LOCKSTEP_TOKEN;
  if (!flags.kubeconfig && !defaultKubeconfigExists(env)) return undefined;
  try {
    // The Kubernetes client is loaded only when a token must come from a kubeconfig (it is most of a start-up).
    const { loadKubeAccess } = await import("@lockstep/kube");
    const access = await loadKubeAccess(flags.kubeconfig, env);
    const opts: { headers?: Record<string, string> } = {};
    await access.applyToHTTPSOptions(opts);
    const header = opts.headers?.Authorization ?? opts.headers?.authorization;
    return header?.startsWith("Bearer ") ? header.slice("Bearer ".length) : undefined;
  } catch (err) {
    if (flags.kubeconfig) throw new CliError(EXIT.USAGE, `--kubeconfig ${flags.kubeconfig}: ${(err as Error).message}`);
    return undefined; // an unusable default kubeconfig: go without a token, the server says if it needs one
  }
}

/** Call metadata carrying the caller's token, if any. */
export async function callMetadata(flags: ConnectionFlags, env: NodeJS.ProcessEnv = process.env): Promise<Metadata> {
  const md = new Metadata();
  const token = await callerToken(flags, env);
  if (token) md.set("authorization", `Bearer ${token}`);
  return md;
}
