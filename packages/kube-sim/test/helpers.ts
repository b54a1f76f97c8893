// Test helpers: raw HTTP against a running kube-sim and line-by-line watch reading.
import { request } from "node:http";
import type { KubeSim } from "../src/index.js";

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: any;
}

export function call(sim: KubeSim, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body);
    const h: Record<string, string> = { accept: "application/json", ...headers };
    if (payload !== undefined) h["content-type"] ??= "application/json";
    if (sim.token) h.authorization ??= `Bearer ${sim.token}`;
    const req = request(`${sim.url}${path}`, { method, headers: h }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let json: any;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
    });
    req.on("error", reject);
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}

export interface WatchEvent {
  type: string;
  object: any;
}

/** An open watch: collects events; `next(n)` waits for n more, `ended` resolves when the server closes. */
export class RawWatch {
  readonly events: WatchEvent[] = [];
  status = 0;
  ended: Promise<void>;
  private waiters: Array<() => void> = [];
  private abort: () => void = () => {};

  constructor(sim: KubeSim, path: string) {
    this.ended = new Promise((resolveEnd, rejectEnd) => {
      const headers: Record<string, string> = {};
      if (sim.token) headers.authorization = `Bearer ${sim.token}`;
      const req = request(`${sim.url}${path}`, { headers }, (res) => {
        this.status = res.statusCode ?? 0;
        let buf = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => {
          buf += c;
          let i: number;
          while ((i = buf.indexOf("\n")) >= 0) {
            const line = buf.slice(0, i);
            buf = buf.slice(i + 1);
            if (line.trim()) this.events.push(JSON.parse(line));
          }
          this.wake();
        });
        res.on("end", () => {
          if (buf.trim()) this.events.push(JSON.parse(buf));
          this.wake();
          resolveEnd();
        });
        res.on("error", () => resolveEnd());
      });
      req.on("error", (e) => (this.status ? resolveEnd() : rejectEnd(e)));
      req.end();
      this.abort = () => req.destroy();
    });
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  /** Waits until at least `count` events have arrived in total. */
  async waitFor(count: number): Promise<WatchEvent[]> {
    while (this.events.length < count) {
      await new Promise<void>((r) => this.waiters.push(r));
    }
    return this.events;
  }

  close(): void {
    this.abort();
  }
}

/** Waits for a condition driven by asynchronous events, polling briefly (no timing assertions). */
export async function until(cond: () => boolean | Promise<boolean>, what: string, limitMs = 15_000): Promise<void> {
  const start = Date.now();
  while (!(await cond())) {
    if (Date.now() - start > limitMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
