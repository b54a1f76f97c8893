// KubeHttp against a recording HTTP server (headers, path prefix, connection reuse) and against
// kube-sim (errors and watch streams).
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { startKubeSim, type KubeSim } from "@lockstep/kube-sim";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kubeAccessForUrl, LiteKubeConfig } from "./access.js";
import { isAlreadyExists, isNotFound, KubeApiError } from "./errors.js";
import { KubeHttp } from "./http.js";

const until = async (f: () => boolean, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!f()) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe("KubeHttp requests", () => {
  const seen: Array<{ url: string; method: string; headers: IncomingHttpHeaders; body: string; port: number }> = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      seen.push({ url: req.url!, method: req.method!, headers: req.headers, body, port: req.socket.remotePort! });
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ ok: true }));
    });
  });
  let url = "";
  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it("sends auth headers and JSON below the server's path prefix, over one kept-alive connection", async () => {
    const kc = new LiteKubeConfig({ name: "c", server: `${url}/prefix/`, skipTLSVerify: true }, { name: "u", username: "ann", password: "pw", impersonateUser: "bob" });
    const h = new KubeHttp(kc);
    expect(await h.request("GET", "/api/v1/nodes", { query: { limit: 5, continue: undefined, labelSelector: "" } })).toEqual({ ok: true });
    await h.request("PATCH", "/api/v1/nodes/a", { body: { spec: { unschedulable: true } } });
    const [get, patch] = seen.slice(-2);
    expect(get!.url).toBe("/prefix/api/v1/nodes?limit=5");
    expect(get!.headers.authorization).toBe(`Basic ${Buffer.from("ann:pw").toString("base64")}`);
    expect(get!.headers["impersonate-user"]).toBe("bob");
    expect([patch!.method, patch!.headers["content-type"], JSON.parse(patch!.body)]).toEqual(["PATCH", "application/merge-patch+json", { spec: { unschedulable: true } }]);
    expect(patch!.port).toBe(get!.port);
  });
});

describe("KubeHttp against kube-sim", () => {
  let sim: KubeSim;
  beforeAll(async () => {
    sim = await startKubeSim({ token: "secret" });
  });
  afterAll(async () => sim.stop());

  it("rejects non-2xx answers with the status code and the Status body", async () => {
    const h = new KubeHttp(kubeAccessForUrl(sim.url, "secret"));
    const err = await h.request("GET", "/api/v1/nodes/missing").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KubeApiError);
    expect(isNotFound(err)).toBe(true);
    await h.request("POST", "/api/v1/nodes", { body: { metadata: { name: "dup" } } });
    expect(isAlreadyExists(await h.request("POST", "/api/v1/nodes", { body: { metadata: { name: "dup" } } }).catch((e: unknown) => e))).toBe(true);
    const unauthorized = await new KubeHttp(kubeAccessForUrl(sim.url, "wrong")).request("GET", "/api/v1/nodes").catch((e: unknown) => e);
    expect((unauthorized as KubeApiError).code).toBe(401);
  });

  it("requestText answers any status with the body unparsed, and rejects only without an answer", async () => {
    const h = new KubeHttp(kubeAccessForUrl(sim.url, "secret"));
    const created = await h.requestText("POST", "/api/v1/nodes", { body: { metadata: { name: "text" } } });
    expect(created.status).toBe(201);
    expect(JSON.parse(created.text).metadata.name).toBe("text");
    const missing = await h.requestText("GET", "/api/v1/nodes/absent");
    expect([missing.status, JSON.parse(missing.text).reason]).toEqual([404, "NotFound"]);
    const nobody = new KubeHttp(kubeAccessForUrl("http://127.0.0.1:1"));
    await expect(nobody.requestText("GET", "/api/v1/nodes")).rejects.toThrow(/ECONNREFUSED/);
  });

  it("streams watch events until aborted, then reports a clean end", async () => {
    const h = new KubeHttp(kubeAccessForUrl(sim.url, "secret"));
    const list = await h.request<{ metadata: { resourceVersion: string } }>("GET", "/api/v1/nodes");
    const events: string[] = [];
    let ended: { err: unknown } | undefined;
    const w = await h.watch("/api/v1/nodes", { resourceVersion: list.metadata.resourceVersion }, (type, obj) => events.push(`${type} ${obj.metadata.name}`), (err) => (ended = { err }));
    await h.request("POST", "/api/v1/nodes", { body: { metadata: { name: "w1" } } });
    await h.request("PATCH", "/api/v1/nodes/w1", { body: { metadata: { labels: { a: "b" } } } });
    await h.request("DELETE", "/api/v1/nodes/w1");
    await until(() => events.length === 3);
    expect(events).toEqual(["ADDED w1", "MODIFIED w1", "DELETED w1"]);
    w.abort();
    await until(() => ended !== undefined);
    expect(ended!.err).toBeUndefined();
  });

  it("reads watch lines split anywhere across chunks, multi-byte characters included, and skips blank lines", async () => {
    // The server sends the stream in pieces that cut lines and a UTF-8 character in two.
    const lines = [{ type: "ADDED", object: { metadata: { name: "n1", labels: { k: "é€😀" } } } }, { type: "MODIFIED", object: { metadata: { name: "n2" } } }, { type: "DELETED", object: { metadata: { name: "n3" } } }];
    const bytes = Buffer.from(`${JSON.stringify(lines[0])}\n\n${JSON.stringify(lines[1])}\n${JSON.stringify(lines[2])}\n`);
    const cuts = [5, bytes.indexOf("€") + 1, bytes.indexOf("😀") + 2, bytes.indexOf("\n") + 1, bytes.lastIndexOf("\n") - 3, bytes.length];
    const server = createServer(async (_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      let from = 0;
      for (const cut of cuts) {
        res.write(bytes.subarray(from, cut));
        from = cut;
        await new Promise((r) => setTimeout(r, 10));
      }
      res.end();
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const h = new KubeHttp(kubeAccessForUrl(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, "secret"));
      const events: unknown[] = [];
      let ended: { err: unknown } | undefined;
      await h.watch("/api/v1/nodes", {}, (type, object) => events.push({ type, object }), (err) => (ended = { err }));
      await until(() => ended !== undefined);
      expect(ended!.err).toBeUndefined();
      expect(events).toEqual(lines);
    } finally {
      server.close();
    }
  });

  it("rejects a watch the server refuses", async () => {
    const h = new KubeHttp(kubeAccessForUrl(sim.url, "secret"));
    const err = await h.watch("/apis/nope.example/v1/things", {}, () => {}, () => {}).catch((e: unknown) => e);
    expect(isNotFound(err)).toBe(true);
  });
});
