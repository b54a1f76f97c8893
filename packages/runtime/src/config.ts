/**
 * Service configuration from environment variables, validated once at start-up.
 *
 * A config schema is a zod object whose keys ARE the environment variable names, built from the
 * `env.*` helpers below (each parses the string value of one variable). Services extend the common
 * base with {@link serviceConfigSchema}; `main.ts` calls {@link loadConfigOrExit} once and passes
 * the typed result down. On bad input every problem is listed at once, each naming its variable:
 *
 *     invalid configuration:
 *       NATS_URL: required
 *       GRPC_PORT: expected a port number 0-65535
 *
 * An empty variable (`FOO=`) counts as unset, as Kubernetes manifests often produce those.
 */
import { z } from "zod";
import { parseDuration } from "./duration.js";

type Env = Record<string, string | undefined>;

/** Log levels accepted by LOG_LEVEL (pino's). */
export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

const TRUE = new Set(["true", "1", "yes", "on"]);
const FALSE = new Set(["false", "0", "no", "off"]);

/** Parsers for the string value of one environment variable. */
export const env = {
  /** Any non-empty string. */
  string: () => z.string(),
  /** TCP port, 0-65535 (0 = pick a free port). */
  port: () =>
    z.string().transform((s, ctx) => {
      const n = Number(s.trim());
      if (!/^\d{1,5}$/.test(s.trim()) || n > 65535) {
        ctx.addIssue({ code: "custom", message: "expected a port number 0-65535" });
        return z.NEVER;
      }
      return n;
    }),
  /** Integer within optional bounds. */
  int: (bounds: { min?: number; max?: number } = {}) =>
    z.string().transform((s, ctx) => {
      const n = Number(s.trim());
      const { min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER } = bounds;
      if (!/^-?\d+$/.test(s.trim()) || n < min || n > max) {
        ctx.addIssue({ code: "custom", message: `expected an integer ${min}..${max}` });
        return z.NEVER;
      }
      return n;
    }),
  /** Duration such as "500ms", "30s", "5m", "1h30m"; parsed to milliseconds. */
  duration: () =>
    z.string().transform((s, ctx) => {
      const ms = parseDuration(s);
      if (ms === undefined) {
        ctx.addIssue({ code: "custom", message: 'expected a duration such as "500ms", "30s", "5m" or "1h30m"' });
        return z.NEVER;
      }
      return ms;
    }),
  /** true/false, 1/0, yes/no, on/off (any case). */
  bool: () =>
    z.string().transform((s, ctx) => {
      const v = s.trim().toLowerCase();
      if (TRUE.has(v)) return true;
      if (FALSE.has(v)) return false;
      ctx.addIssue({ code: "custom", message: "expected true or false" });
      return z.NEVER;
    }),
  /** Comma-separated list; items trimmed, empty items dropped; at least one item. */
  list: () =>
    z.string().transform((s, ctx) => {
      const items = s.split(",").map((x) => x.trim()).filter((x) => x.length > 0);
      if (items.length === 0) {
        ctx.addIssue({ code: "custom", message: "expected a comma-separated list with at least one item" });
        return z.NEVER;
      }
      return items;
    }),
  /** One of pino's log levels. */
  logLevel: () =>
    z.string().transform((s, ctx) => {
      const v = s.trim().toLowerCase();
      if ((LOG_LEVELS as readonly string[]).includes(v)) return v as LogLevel;
      ctx.addIssue({ code: "custom", message: `expected one of ${LOG_LEVELS.join(", ")}` });
      return z.NEVER;
    }),
};

/**
 * Variables every Lockstep service understands. Extend with {@link serviceConfigSchema}.
 *
 * | variable | meaning | default |
 * |---|---|---|
 * | SERVICE_NAME | name in logs and metrics | the service's own name |
 * | LOG_LEVEL | pino level | info |
 * | HTTP_PORT | /healthz, /readyz, /metrics | 8080 |
 * | GRPC_PORT | gRPC API + grpc.health.v1 | 9090 |
 * | GRPC_TLS_CERT, GRPC_TLS_KEY | PEM files; both or neither (neither = plaintext) | |
 * | GRPC_TLS_CA | PEM file of CAs trusted for client certificates | |
 * | GRPC_TLS_REQUIRE_CLIENT_CERT | mutual TLS; needs GRPC_TLS_CA | false |
 * | GRPC_REFLECTION | answer gRPC server reflection (v1, v1alpha), so grpcurl and the like need no .proto files; about 16 MiB of resident memory | true |
 * | NATS_URL | comma-separated server URLs | required |
 * | NATS_CREDS_FILE / NATS_TOKEN / NATS_USER+NATS_PASSWORD | NATS auth, at most one kind | |
 * | NATS_REPLICAS | JetStream replicas of the event stream and the state bucket, 1..5 (more than 1 needs a JetStream cluster of at least that many servers; an existing stream is updated to it) | 1 |
 * | SHUTDOWN_TIMEOUT | how long an orderly stop may take | 25s |
 * | STATE_MAX_AGE | how old a service's view of the state plane (time since the watcher's last heartbeat) may be before it is stale: not ready, no new disruption, no writes from it; at least 1s | 15s |
 * | KUBECONFIG | kubeconfig file; in-cluster config when unset inside a pod | client-node default |
 * | LEADER_ELECTION | elect one writer among the replicas (coordination.k8s.io/v1 Lease `lockstep-<service>`); false: this process always writes (one replica only) | true |
 * | LEADER_ELECTION_NAMESPACE | namespace of the election Lease | POD_NAMESPACE, else the pod's service-account namespace, else lockstep-system |
 * | LEADER_ELECTION_ID | holder identity | POD_NAME (else the hostname) + "_" + a random UUID, as client-go |
 * | LEADER_ELECTION_LEASE_DURATION / _RENEW_DEADLINE / _RETRY_PERIOD | client-go's timings; renew deadline < lease duration, > 1.2 × retry period (client-go's jitter) | 10s / 7s / 1.5s (failover within 15 s; the watcher's are shorter) |
 * | POD_NAME / POD_NAMESPACE | the pod's name and namespace (downward API) | |
 * | V8_OPTIMIZE_FOR_SIZE | V8's optimize-for-size mode, set at start (heap-tuning.ts): full collections give back fragmented old-space pages, a lower peak RSS for some more GC time; the chart turns it on | false |
 */
export const baseConfigShape = {
  SERVICE_NAME: env.string().optional(),
  LOG_LEVEL: env.logLevel().default("info"),
  HTTP_PORT: env.port().default(8080),
  GRPC_PORT: env.port().default(9090),
  GRPC_TLS_CERT: env.string().optional(),
  GRPC_TLS_KEY: env.string().optional(),
  GRPC_TLS_CA: env.string().optional(),
  GRPC_TLS_REQUIRE_CLIENT_CERT: env.bool().default(false),
  GRPC_REFLECTION: env.bool().default(true),
  NATS_URL: env.list(),
  NATS_CREDS_FILE: env.string().optional(),
  NATS_TOKEN: env.string().optional(),
  NATS_USER: env.string().optional(),
  NATS_PASSWORD: env.string().optional(),
  NATS_REPLICAS: env.int({ min: 1, max: 5 }).default(1),
  SHUTDOWN_TIMEOUT: env.duration().default(25_000),
  // In the base so every service's config (and the chart's common env) has one meaning for it; the
  // watcher checks its heartbeat interval against it.
  STATE_MAX_AGE: env.duration().default(15_000),
  KUBECONFIG: env.string().optional(),
  LEADER_ELECTION: env.bool().default(true),
  LEADER_ELECTION_NAMESPACE: env.string().optional(),
  LEADER_ELECTION_ID: env.string().optional(),
  // Shorter than controller-runtime's 15s / 10s / 2s: a candidate takes over only after it has seen
  // the Lease unrenewed for the lease duration, and it looks every retry period (+20% jitter), so the
  // worst failover after a crash is 10 + 2 × 1.8 = 13.6 s, inside the 15 s the services promise;
  // 15s / 2s would be up to 19.8 s. The price is a Lease write every 1.5 s per service.
  LEADER_ELECTION_LEASE_DURATION: env.duration().default(10_000),
  LEADER_ELECTION_RENEW_DEADLINE: env.duration().default(7_000),
  LEADER_ELECTION_RETRY_PERIOD: env.duration().default(1_500),
  POD_NAME: env.string().optional(),
  POD_NAMESPACE: env.string().optional(),
  V8_OPTIMIZE_FOR_SIZE: env.bool().default(false),
};

type BaseShapeOutput = { [K in keyof typeof baseConfigShape]: z.output<(typeof baseConfigShape)[K]> };

/**
 * Cross-variable rules of the base config. Runs even when single variables are invalid (so all
 * problems show at once), hence the defensive reads: an invalid field holds no usable value.
 */
function checkBase(raw: Record<string, unknown>, ctx: z.RefinementCtx): void {
  const set = (name: keyof BaseShapeOutput) => typeof raw[name] === "string" && (raw[name] as string).length > 0;
  const mtls = raw.GRPC_TLS_REQUIRE_CLIENT_CERT === true;
  const issue = (path: string, message: string) => ctx.addIssue({ code: "custom", path: [path], message });
  if (set("GRPC_TLS_CERT") && !set("GRPC_TLS_KEY")) issue("GRPC_TLS_KEY", "required when GRPC_TLS_CERT is set");
  if (set("GRPC_TLS_KEY") && !set("GRPC_TLS_CERT")) issue("GRPC_TLS_CERT", "required when GRPC_TLS_KEY is set");
  if (mtls && !set("GRPC_TLS_CA")) issue("GRPC_TLS_CA", "required when GRPC_TLS_REQUIRE_CLIENT_CERT is true");
  if (mtls && !set("GRPC_TLS_CERT")) issue("GRPC_TLS_CERT", "required when GRPC_TLS_REQUIRE_CLIENT_CERT is true");
  if (set("NATS_USER") && !set("NATS_PASSWORD")) issue("NATS_PASSWORD", "required when NATS_USER is set");
  if (set("NATS_PASSWORD") && !set("NATS_USER")) issue("NATS_USER", "required when NATS_PASSWORD is set");
  if (typeof raw.STATE_MAX_AGE === "number" && raw.STATE_MAX_AGE < 1_000) issue("STATE_MAX_AGE", "must be at least 1s");
  const lease = raw.LEADER_ELECTION_LEASE_DURATION, renew = raw.LEADER_ELECTION_RENEW_DEADLINE, retry = raw.LEADER_ELECTION_RETRY_PERIOD;
  if (typeof lease === "number" && lease < 1_000) issue("LEADER_ELECTION_LEASE_DURATION", "must be at least 1s");
  // The renew deadline is the fencing margin: a leader that cannot renew stops before others may take over.
  if (typeof lease === "number" && typeof renew === "number" && renew >= lease) issue("LEADER_ELECTION_RENEW_DEADLINE", `must be shorter than LEADER_ELECTION_LEASE_DURATION (${lease}ms), or two replicas could act at once`);
  // client-go jitters the retry period by up to 20%: the leader must get more than one renewal try.
  if (typeof renew === "number" && typeof retry === "number" && retry * 1.2 >= renew) issue("LEADER_ELECTION_RETRY_PERIOD", `must be shorter than LEADER_ELECTION_RENEW_DEADLINE / 1.2 (${renew}ms / 1.2: client-go's jitter), so the leader gets more than one try to renew`);
  const kinds = (["NATS_CREDS_FILE", "NATS_TOKEN", "NATS_USER"] as const).filter(set);
  if (kinds.length > 1) issue(kinds[1]!, `only one NATS auth method may be set (found ${kinds.join(", ")})`);
}

/**
 * The base config plus a service's own variables, e.g.
 * `serviceConfigSchema({ RESYNC_PERIOD: env.duration().default(600_000) })`.
 */
export function serviceConfigSchema<S extends z.ZodRawShape>(extra: S) {
  return z.object({ ...baseConfigShape, ...extra }).superRefine((c, ctx) => checkBase(c as Record<string, unknown>, ctx), {
    when: () => true,
  });
}

/** Schema of the base config alone. */
export const baseConfigSchema = serviceConfigSchema({});
/** The parsed base config. */
export type BaseConfig = z.output<typeof baseConfigSchema>;

/** Outcome of {@link parseConfig}: the typed config, or every problem as "VAR: message". */
export type ConfigResult<T> = { ok: true; config: T } | { ok: false; errors: string[] };

/** Validates `env` against `schema` without side effects. Empty values count as unset. */
export function parseConfig<S extends z.ZodType>(schema: S, environment: Env = process.env): ConfigResult<z.output<S>> {
  const cleaned: Env = {};
  for (const [k, v] of Object.entries(environment)) if (v !== undefined && v.trim() !== "") cleaned[k] = v;
  const result = schema.safeParse(cleaned);
  if (result.success) return { ok: true, config: result.data };
  const errors: string[] = [];
  for (const issue of result.error.issues) {
    const name = issue.path.map(String).join(".") || "(config)";
    const missing = issue.code === "invalid_type" && issue.path.length === 1 && cleaned[name] === undefined;
    const line = `${name}: ${missing ? "required" : issue.message}`;
    if (!errors.includes(line)) errors.push(line);
  }
  return { ok: false, errors };
}

/** Thrown by {@link loadConfig}; `errors` holds every problem as "VAR: message". */
export class ConfigError extends Error {
  override name = "ConfigError";
  constructor(readonly errors: string[]) {
    super(`invalid configuration: ${errors.join("; ")}`);
  }
}

/** Validates the environment; throws a {@link ConfigError} listing every problem. */
export function loadConfig<S extends z.ZodType>(schema: S, environment: Env = process.env): z.output<S> {
  const result = parseConfig(schema, environment);
  if (!result.ok) throw new ConfigError(result.errors);
  return result.config;
}

/**
 * Validates the environment once at start-up. On any problem, prints every one of them to stderr
 * and exits with code 2 (bad configuration, as opposed to 1 for a runtime failure).
 */
export function loadConfigOrExit<S extends z.ZodType>(schema: S, environment: Env = process.env): z.output<S> {
  const result = parseConfig(schema, environment);
  if (result.ok) return result.config;
  process.stderr.write(`invalid configuration:\n${result.errors.map((e) => `  ${e}\n`).join("")}`);
  process.exit(2);
}
