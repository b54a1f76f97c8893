import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { baseConfigSchema, ConfigError, env, loadConfig, parseConfig, serviceConfigSchema } from "./config.js";

describe("parseConfig", () => {
  it("applies defaults to the base config", () => {
    const r = parseConfig(baseConfigSchema, { NATS_URL: "nats://127.0.0.1:4222" });
    expect(r).toEqual({
      ok: true,
      config: {
        LOG_LEVEL: "info",
        HTTP_PORT: 8080,
        GRPC_PORT: 9090,
        GRPC_TLS_REQUIRE_CLIENT_CERT: false,
        GRPC_REFLECTION: true,
        NATS_URL: ["nats://127.0.0.1:4222"],
        NATS_REPLICAS: 1,
        SHUTDOWN_TIMEOUT: 25_000,
        STATE_MAX_AGE: 15_000,
        LEADER_ELECTION: true,
        LEADER_ELECTION_LEASE_DURATION: 10_000,
        LEADER_ELECTION_RENEW_DEADLINE: 7_000,
        LEADER_ELECTION_RETRY_PERIOD: 1_500,
        V8_OPTIMIZE_FOR_SIZE: false,
      },
    });
  });

  it("takes client-go's election timings only with the renew deadline between the retry period and the lease duration", () => {
    const base = { NATS_URL: "nats://127.0.0.1:4222" };
    expect(parseConfig(baseConfigSchema, { ...base, LEADER_ELECTION_LEASE_DURATION: "137s", LEADER_ELECTION_RENEW_DEADLINE: "107s", LEADER_ELECTION_RETRY_PERIOD: "26s" })).toMatchObject({ ok: true });
    expect(parseConfig(baseConfigSchema, { ...base, LEADER_ELECTION_RENEW_DEADLINE: "15s", LEADER_ELECTION_RETRY_PERIOD: "15s", LEADER_ELECTION_LEASE_DURATION: "500ms" })).toEqual({
      ok: false,
      errors: [
        "LEADER_ELECTION_LEASE_DURATION: must be at least 1s",
        "LEADER_ELECTION_RENEW_DEADLINE: must be shorter than LEADER_ELECTION_LEASE_DURATION (500ms), or two replicas could act at once",
        "LEADER_ELECTION_RETRY_PERIOD: must be shorter than LEADER_ELECTION_RENEW_DEADLINE / 1.2 (15000ms / 1.2: client-go's jitter), so the leader gets more than one try to renew",
      ],
    });
  });

  it("takes STATE_MAX_AGE as a duration of at least one second", () => {
    const base = { NATS_URL: "nats://127.0.0.1:4222" };
    expect(parseConfig(baseConfigSchema, { ...base, STATE_MAX_AGE: "3s" })).toMatchObject({ ok: true, config: { STATE_MAX_AGE: 3_000 } });
    expect(parseConfig(baseConfigSchema, { ...base, STATE_MAX_AGE: "500ms" })).toEqual({ ok: false, errors: ["STATE_MAX_AGE: must be at least 1s"] });
    expect(parseConfig(baseConfigSchema, { ...base, STATE_MAX_AGE: "soon" })).toMatchObject({ ok: false, errors: [expect.stringMatching(/^STATE_MAX_AGE: expected a duration/)] });
  });

  it("takes NATS_REPLICAS as an integer 1..5", () => {
    const base = { NATS_URL: "nats://a:4222,nats://b:4222,nats://c:4222" };
    expect(parseConfig(baseConfigSchema, { ...base, NATS_REPLICAS: "3" })).toMatchObject({ ok: true, config: { NATS_REPLICAS: 3 } });
    for (const bad of ["0", "6", "2.5", "three"]) expect(parseConfig(baseConfigSchema, { ...base, NATS_REPLICAS: bad })).toEqual({ ok: false, errors: ["NATS_REPLICAS: expected an integer 1..5"] });
  });

  it("lists every problem at once, each naming its variable", () => {
    const r = parseConfig(baseConfigSchema, {
      GRPC_PORT: "70000",
      HTTP_PORT: "http",
      LOG_LEVEL: "loud",
      SHUTDOWN_TIMEOUT: "30",
      GRPC_TLS_REQUIRE_CLIENT_CERT: "maybe",
    });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors).toEqual([
      "LOG_LEVEL: expected one of fatal, error, warn, info, debug, trace, silent",
      "HTTP_PORT: expected a port number 0-65535",
      "GRPC_PORT: expected a port number 0-65535",
      "GRPC_TLS_REQUIRE_CLIENT_CERT: expected true or false",
      "NATS_URL: required",
      'SHUTDOWN_TIMEOUT: expected a duration such as "500ms", "30s", "5m" or "1h30m"',
    ]);
  });

  it("treats empty values as unset", () => {
    const r = parseConfig(baseConfigSchema, { NATS_URL: "  ", HTTP_PORT: "" });
    expect(r).toEqual({ ok: false, errors: ["NATS_URL: required"] });
  });

  it("checks variables that go together", () => {
    const r = parseConfig(baseConfigSchema, {
      NATS_URL: "nats://a:4222, nats://b:4222",
      GRPC_TLS_CERT: "/tls/tls.crt",
      GRPC_TLS_REQUIRE_CLIENT_CERT: "true",
      NATS_USER: "lockstep",
      NATS_TOKEN: "t0ken",
    });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors).toEqual([
      "GRPC_TLS_KEY: required when GRPC_TLS_CERT is set",
      "GRPC_TLS_CA: required when GRPC_TLS_REQUIRE_CLIENT_CERT is true",
      "NATS_PASSWORD: required when NATS_USER is set",
      "NATS_USER: only one NATS auth method may be set (found NATS_TOKEN, NATS_USER)",
    ]);
  });

  it("extends the base with a service's own variables, typed", () => {
    const schema = serviceConfigSchema({
      RESYNC_PERIOD: env.duration().default(600_000),
      WORKERS: env.int({ min: 1, max: 64 }).default(4),
      WATCH_NAMESPACES: env.list().optional(),
      DRY_RUN: env.bool().default(false),
    });
    const r = parseConfig(schema, {
      NATS_URL: "nats://x:4222",
      RESYNC_PERIOD: "1h30m",
      WATCH_NAMESPACES: "a, b,,c",
      DRY_RUN: "YES",
      LOG_LEVEL: "DEBUG",
      GRPC_PORT: "0",
    });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const c = r.config;
    const workers: number = c.WORKERS;
    expect({ ...c, workers }).toMatchObject({
      RESYNC_PERIOD: 5_400_000,
      WORKERS: 4,
      workers: 4,
      WATCH_NAMESPACES: ["a", "b", "c"],
      DRY_RUN: true,
      LOG_LEVEL: "debug",
      GRPC_PORT: 0,
    });
    const bad = parseConfig(schema, { NATS_URL: "n", WORKERS: "65" });
    expect(bad).toEqual({ ok: false, errors: ["WORKERS: expected an integer 1..64"] });
  });

  it("works with any zod object schema", () => {
    expect(parseConfig(z.object({ KUBECONFIG: z.string() }), {})).toEqual({ ok: false, errors: ["KUBECONFIG: required"] });
  });
});

describe("loadConfig", () => {
  it("throws a ConfigError carrying every problem", () => {
    let caught: unknown;
    try {
      loadConfig(baseConfigSchema, { GRPC_PORT: "x" });
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as ConfigError).errors).toEqual(["GRPC_PORT: expected a port number 0-65535", "NATS_URL: required"]);
  });
});

describe("parseConfig with several kinds of problem", () => {
  it("reports variable pairs together with single-variable errors", () => {
    const r = parseConfig(baseConfigSchema, { GRPC_TLS_CERT: "/tls/tls.crt", GRPC_TLS_REQUIRE_CLIENT_CERT: "maybe" });
    expect(r).toEqual({
      ok: false,
      errors: [
        "GRPC_TLS_REQUIRE_CLIENT_CERT: expected true or false",
        "NATS_URL: required",
        "GRPC_TLS_KEY: required when GRPC_TLS_CERT is set",
      ],
    });
  });
});

describe("loadConfigOrExit", () => {
  const fixture = fileURLToPath(new URL("../test/fixtures/config-child.ts", import.meta.url));
  const runChild = (environment: Record<string, string>) =>
    spawnSync(process.execPath, ["--import", "tsx", fixture], {
      cwd: fileURLToPath(new URL("..", import.meta.url)),
      env: { PATH: process.env.PATH ?? "", ...environment },
      encoding: "utf8",
    });

  it("prints every problem to stderr and exits with code 2", () => {
    const r = runChild({ GRPC_PORT: "99999" });
    expect(r.status).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe("invalid configuration:\n  GRPC_PORT: expected a port number 0-65535\n  NATS_URL: required\n");
  });

  it("returns the config when it is valid", () => {
    const r = runChild({ NATS_URL: "nats://127.0.0.1:4222" });
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ natsUrl: ["nats://127.0.0.1:4222"] });
  });
});
