// The webhook Service's endpoints keep a failed replica routed for a real Service's lag, then drop it,
// and take it back as soon as its probe passes again. Real HTTP readiness endpoints; the processes
// are stand-ins carrying only `running`, as the probe reads it.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { ManagedProcess } from "@lockstep/launcher";
import { afterEach, describe, expect, it } from "vitest";
import { ENDPOINT_LAG_MS, WebhookEndpoints } from "./webhook-endpoints.js";

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise((r) => s.close(() => r(undefined)));
});

async function readyz(): Promise<{ port: number; ready: { ok: boolean } }> {
  const ready = { ok: true };
  const s = createServer((_req, res) => res.writeHead(ready.ok ? 200 : 503).end());
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", () => r()));
  return { port: (s.address() as AddressInfo).port, ready };
}

const until = async (cond: () => boolean, limitMs = 10_000) => {
  const end = Date.now() + limitMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error("condition not met");
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe("WebhookEndpoints", () => {
  it("routes to a replica that failed its probe for about ENDPOINT_LAG_MS, then not, and again once it passes", async () => {
    const a = await readyz();
    const b = await readyz();
    const endpoints = new WebhookEndpoints([9001, 9002]);
    endpoints.follow([
      { process: { running: true } as unknown as ManagedProcess, http: a.port },
      { process: { running: true } as unknown as ManagedProcess, http: b.port },
    ]);
    try {
      const picked = () => new Set(Array.from({ length: 4 }, () => endpoints.pick()));
      expect(picked()).toEqual(new Set(["https://127.0.0.1:9001", "https://127.0.0.1:9002"]));
      b.ready.ok = false;
      const failedAt = Date.now();
      await until(() => !picked().has("https://127.0.0.1:9002"));
      // Not before the lag: its clock starts at the first failed probe, after failedAt.
      expect(Date.now() - failedAt).toBeGreaterThanOrEqual(ENDPOINT_LAG_MS);
      expect(picked()).toEqual(new Set(["https://127.0.0.1:9001"]));
      b.ready.ok = true;
      await until(() => picked().has("https://127.0.0.1:9002"));
    } finally {
      endpoints.stop();
    }
  });
});
