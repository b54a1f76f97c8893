// The process skeleton without the process: config in, servers bound, the service's parts run
// first and stop last; the election stops first (the Lease is handed over while reads are still served);
// other servers (webhooks) are bound after gRPC and stop with it.
import { env, loadConfig, run, serviceConfigSchema, type Runnable } from "@lockstep/runtime";
import { describe, expect, it } from "vitest";
import { startService, type ServerPart } from "./run-service.js";

const schema = serviceConfigSchema({ GREETING: env.string().default("hello") });

describe("startService", () => {
  it("hands the wiring its config, logger, registry and bus options, binds both servers, and stops the servers before the parts", async () => {
    const config = loadConfig(schema, { NATS_URL: "nats://127.0.0.1:4222", HTTP_PORT: "0", GRPC_PORT: "0", LOG_LEVEL: "silent", GREETING: "hi", LEADER_ELECTION: "false" });
    const order: string[] = [];
    const part: Runnable = {
      name: "part",
      async start(signal) {
        await new Promise<void>((r) => signal.addEventListener("abort", () => r(), { once: true }));
      },
    };
    const started = await startService(
      {
        name: "test-service",
        config: schema,
        wire: (ctx) => {
          expect(ctx.config.GREETING).toBe("hi");
          expect(ctx.bus()).toMatchObject({ servers: ["nats://127.0.0.1:4222"], name: "lockstep-test-service" });
          expect(ctx.bus("policies").name).toBe("lockstep-test-service-policies");
          ctx.readiness.flag("wired", true);
          // Leadership begins when the runnables run (at once, with election off).
          expect(ctx.leader.isLeader()).toBe(false);
          return { runnables: [part] };
        },
      },
      config,
    );
    expect(started.runnables.map((r) => r.name)).toEqual(["part", "grpc", "http", "leader"]);
    const ready = await fetch(`http://127.0.0.1:${started.http.port}/readyz`);
    expect(ready.status).toBe(200);
    expect(started.grpc.port).toBeGreaterThan(0);
    const abort = new AbortController();
    const running = run(
      started.runnables.map((r) => ({ name: r.name, start: async (s: AbortSignal) => (await r.start(s), void order.push(`${r.name} stopped`)) })),
      { signal: abort.signal },
    );
    abort.abort();
    await running;
    expect(order).toEqual(["leader stopped", "http stopped", "grpc stopped", "part stopped"]);
  });

  it("binds the servers a wiring names after gRPC, and stops them with gRPC, before the parts", async () => {
    const config = loadConfig(schema, { NATS_URL: "nats://127.0.0.1:4222", HTTP_PORT: "0", GRPC_PORT: "0", LOG_LEVEL: "silent", LEADER_ELECTION: "false" });
    const order: string[] = [];
    const server = (name: string): ServerPart => ({
      name,
      start: async () => (order.push(`${name} bound`), { stop: () => void order.push(`${name} closed`) }),
    });
    const part: Runnable = { name: "part", start: (signal) => new Promise<void>((r) => signal.addEventListener("abort", () => r(), { once: true })).then(() => void order.push("part stopped")) };
    const started = await startService({ name: "test-service", config: schema, wire: () => ({ runnables: [part], servers: [server("webhook"), server("other")] }) }, config);
    expect(order).toEqual(["webhook bound", "other bound"]);
    expect(started.runnables.map((r) => r.name)).toEqual(["part", "webhook", "other", "grpc", "http", "leader"]);
    const abort = new AbortController();
    const running = run(started.runnables, { signal: abort.signal });
    abort.abort();
    await running;
    expect(order.slice(2)).toEqual(["other closed", "webhook closed", "part stopped"]);
  });

  it("lets go of what it bound when a server cannot start", async () => {
    const config = loadConfig(schema, { NATS_URL: "nats://127.0.0.1:4222", HTTP_PORT: "0", GRPC_PORT: "0", LOG_LEVEL: "silent", LEADER_ELECTION: "false" });
    const closed: string[] = [];
    const ok: ServerPart = { name: "ok", start: async () => ({ stop: () => void closed.push("ok") }) };
    const broken: ServerPart = { name: "broken", start: () => Promise.reject(new Error("address in use")) };
    await expect(startService({ name: "test-service", config: schema, wire: () => ({ runnables: [], servers: [ok, broken] }) }, config)).rejects.toThrow("address in use");
    expect(closed).toEqual(["ok"]);
  });
});
