// The I/O edge of the alert source: one GET of a Prometheus-compatible alerts API (Prometheus,
// Alertmanager-less thanos-querier `/api/v1/alerts`), with a bearer token and a CA of its own.
// Any failure (network, HTTP status, body that is not an alerts answer) is one Error with a message
// a human can act on; the poller turns it into the "cannot read alerts" insight.
import { readFile } from "node:fs/promises";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import type { AlertsResponse } from "@lockstep/insights";

export interface AlertsClientOptions {
  url: string;
  /** Read at every request: projected service-account tokens rotate. */
  tokenFile?: string;
  /** PEM CAs for an https URL (system CAs otherwise). */
  ca?: string;
  timeoutMs: number;
}

const MAX_BODY = 32 * 2 ** 20;

export async function fetchAlerts(o: AlertsClientOptions, signal?: AbortSignal): Promise<AlertsResponse> {
  const headers: Record<string, string> = { accept: "application/json" };
  if (o.tokenFile) {
    let token: string;
    try {
      token = (await readFile(o.tokenFile, "utf8")).trim();
    } catch (err) {
      throw new Error(`cannot read the bearer token file ${o.tokenFile}: ${(err as Error).message}`);
    }
    headers.authorization = `Bearer ${token}`;
  }
  const url = new URL(o.url);
  const body = await new Promise<string>((resolve, reject) => {
    const send = url.protocol === "https:" ? httpsRequest : httpRequest;
    const req = send(url, { method: "GET", headers, timeout: o.timeoutMs, signal, ...(o.ca ? { ca: o.ca } : {}) }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (c: Buffer) => {
        size += c.length;
        if (size > MAX_BODY) req.destroy(new Error(`answer larger than ${MAX_BODY} bytes`));
        else chunks.push(c);
      });
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        if (res.statusCode !== 200) reject(new Error(`HTTP ${res.statusCode}${text ? `: ${text.trim().slice(0, 200)}` : ""}`));
        else resolve(text);
      });
      res.on("error", reject);
    });
    req.on("timeout", () => req.destroy(new Error(`no answer within ${o.timeoutMs} ms`)));
    req.on("error", reject);
    req.end();
  });
  return parseAlertsAnswer(body);
}

/** The alerts API's JSON answer, checked to be one (status "success", data.alerts a list). */
export function parseAlertsAnswer(text: string): AlertsResponse {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new Error(`the answer is not JSON: ${(err as Error).message}`);
  }
  const d = doc as { status?: unknown; error?: unknown; data?: { alerts?: unknown } };
  if (d === null || typeof d !== "object") throw new Error("the answer is not a JSON object");
  if (d.status !== "success") throw new Error(`the answer has status ${JSON.stringify(d.status)}${typeof d.error === "string" ? `: ${d.error}` : ""}`);
  if (!Array.isArray(d.data?.alerts)) throw new Error("the answer has no data.alerts list");
  return doc as AlertsResponse;
}
