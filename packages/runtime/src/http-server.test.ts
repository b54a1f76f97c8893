import { afterEach, describe, expect, it } from "vitest";
import { Counter } from "prom-client";
import { startHttpServer, type HttpServerHandle } from "./http-server.js";
import { createMetricsRegistry } from "./metrics.js";
import { Readiness } from "./readiness.js";

let handle: HttpServerHandle | undefined;
afterEach(async () => {
  await handle?.stop();
  handle = undefined;
});

describe("startHttpServer", () => {
  it("binds a free port for port 0 and answers /healthz", async () => {
    handle = await startHttpServer({ port: 0, host: "127.0.0.1" });
    expect(handle.port).toBeGreaterThan(0);
    expect(handle.url).toBe(`http://127.0.0.1:${handle.port}`);
    const res = await fetch(`${handle.url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("ok\n");
    expect((await fetch(`${handle.url}/nope`)).status).toBe(404);
    expect((await fetch(`${handle.url}/healthz`, { method: "POST" })).status).toBe(405);
  });

  it("reports ready only when every check passes, naming the failing ones", async () => {
    const readiness = new Readiness(200);
    const synced = readiness.flag("state-synced", false, "initial KV load not finished");
    let natsUp = true;
    readiness.add("nats", () => natsUp);
    readiness.add("kube", async () => {
      throw new Error("connection refused");
    });
    readiness.add("slow", () => new Promise<boolean>(() => {}));
    handle = await startHttpServer({ port: 0, host: "127.0.0.1", readiness });

    let res = await fetch(`${handle.url}/readyz`);
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({
      ready: false,
      failing: [
        { name: "state-synced", reason: "initial KV load not finished" },
        { name: "kube", reason: "connection refused" },
        { name: "slow", reason: "timed out after 200ms" },
      ],
    });

    readiness.remove("kube");
    readiness.remove("slow");
    synced.set(true);
    natsUp = false;
    res = await fetch(`${handle.url}/readyz`);
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ ready: false, failing: [{ name: "nats", reason: "not ready" }] });

    natsUp = true;
    res = await fetch(`${handle.url}/readyz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ready: true, failing: [] });
  });

  it("serves the registry as Prometheus text on /metrics", async () => {
    const registry = createMetricsRegistry({ service: "watcher" });
    const writes = new Counter({ name: "lockstep_kv_writes_total", help: "KV writes", registers: [registry] });
    writes.inc(3);
    handle = await startHttpServer({ port: 0, host: "127.0.0.1", registry });
    const res = await fetch(`${handle.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/plain");
    const text = await res.text();
    expect(text).toContain('lockstep_kv_writes_total{service="watcher"} 3');
    expect(text).toContain("process_cpu_user_seconds_total");
  });

  it("stops even with a keep-alive connection open", async () => {
    handle = await startHttpServer({ port: 0, host: "127.0.0.1" });
    const url = handle.url;
    await fetch(`${url}/healthz`); // leaves a pooled keep-alive connection
    await handle.stop();
    handle = undefined;
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  });
});
