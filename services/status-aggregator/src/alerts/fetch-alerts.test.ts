// The alerts API client against a real HTTP server on loopback: the bearer token read from its
// file at every request, and each kind of failure as one clear error.
import { createServer, type IncomingMessage, type Server } from "node:http";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fetchAlerts, parseAlertsAnswer } from "./fetch-alerts.js";

let server: Server;
let url: string;
let reply: (req: IncomingMessage) => { status: number; body: string } = () => ({ status: 200, body: "" });
const seen: Array<string | undefined> = [];
const dir = mkdtempSync(join(tmpdir(), "lockstep-alerts-"));

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(req.headers.authorization);
    const r = reply(req);
    res.writeHead(r.status, { "content-type": "application/json" }).end(r.body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}/api/v1/alerts`;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
  rmSync(dir, { recursive: true, force: true });
});

describe("fetchAlerts", () => {
  it("sends the token of its file, read again at every request (rotation)", async () => {
    const tokenFile = join(dir, "token");
    const body = { status: "success", data: { alerts: [{ labels: { alertname: "X", severity: "critical" }, state: "firing", activeAt: "2024-01-01T00:00:00Z" }] } };
    reply = () => ({ status: 200, body: JSON.stringify(body) });
    writeFileSync(tokenFile, "first\n");
    expect(await fetchAlerts({ url, tokenFile, timeoutMs: 5_000 })).toEqual(body);
    writeFileSync(tokenFile, "second");
    await fetchAlerts({ url, tokenFile, timeoutMs: 5_000 });
    expect(seen.slice(-2)).toEqual(["Bearer first", "Bearer second"]);
  });

  it("fails with the HTTP status and the start of the body", async () => {
    reply = () => ({ status: 403, body: "Forbidden (user=system:serviceaccount:lockstep:x, verb=get)" });
    await expect(fetchAlerts({ url, timeoutMs: 5_000 })).rejects.toThrow("HTTP 403: Forbidden (user=system:serviceaccount:lockstep:x, verb=get)");
  });

  it("fails when nothing listens", async () => {
    await expect(fetchAlerts({ url: "http://127.0.0.1:1/api/v1/alerts", timeoutMs: 5_000 })).rejects.toThrow(/ECONNREFUSED/);
  });

  it("fails with the token file's name when it cannot be read", async () => {
    await expect(fetchAlerts({ url, tokenFile: join(dir, "missing"), timeoutMs: 5_000 })).rejects.toThrow(/cannot read the bearer token file .*missing/);
  });
});

describe("parseAlertsAnswer", () => {
  it.each([
    ["not JSON", "<html>", /not JSON/],
    ["an error answer", JSON.stringify({ status: "error", error: "query timed out" }), 'the answer has status "error": query timed out'],
    ["no alert list", JSON.stringify({ status: "success", data: {} }), "the answer has no data.alerts list"],
    ["not an object", "42", /status undefined|not a JSON object/],
  ])("refuses %s", (_what, text, message) => {
    expect(() => parseAlertsAnswer(text)).toThrow(message);
  });
});
