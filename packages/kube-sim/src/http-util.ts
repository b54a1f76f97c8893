// Small HTTP helpers shared by the API handlers and the admin endpoints.
import type { IncomingMessage, ServerResponse } from "node:http";
import { parse as parseYaml } from "yaml";
import { badRequest, KubeError, unsupportedMediaType } from "./errors.js";
import { decodeProtobuf } from "./protobuf.js";

export const MAX_BODY_BYTES = 16 * 1024 * 1024;

export function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        reject(new KubeError({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message: "Request entity too large", reason: "RequestEntityTooLarge", code: 413 }));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on("end", () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

/**
 * Decodes a request body: JSON, YAML when the content type says so, or Kubernetes protobuf for the
 * kinds protobuf.ts knows. Empty → undefined.
 */
export function decodeBody(buf: Buffer, contentType: string | undefined, allowYaml = true): unknown {
  if (buf.length === 0) return undefined;
  const ct = (contentType ?? "application/json").split(";")[0]!.trim().toLowerCase();
  if (ct === "application/vnd.kubernetes.protobuf") return decodeProtobuf(buf);
  const text = buf.toString("utf8");
  if (ct.includes("yaml")) {
    if (!allowYaml) throw unsupportedMediaType();
    try {
      return parseYaml(text);
    } catch (e) {
      throw badRequest(`error decoding YAML: ${(e as Error).message}`);
    }
  }
  if (ct.includes("protobuf") || ct.includes("cbor")) throw unsupportedMediaType();
  try {
    return JSON.parse(text);
  } catch (e) {
    throw badRequest(`couldn't get version/kind; json parse error: ${(e as Error).message}`);
  }
}

export function sendJson(res: ServerResponse, code: number, body: Buffer | string | unknown, headers: Record<string, string> = {}): void {
  const text = Buffer.isBuffer(body) ? body : Buffer.from(typeof body === "string" ? body : JSON.stringify(body));
  res.writeHead(code, { "Content-Type": "application/json", "Content-Length": text.length, "Cache-Control": "no-cache, private", ...headers });
  res.end(text);
}

export function sendError(res: ServerResponse, err: KubeError): void {
  sendJson(res, err.code, err.status, err.headers);
}

export function sendText(res: ServerResponse, code: number, text: string): void {
  res.writeHead(code, { "Content-Type": "text/plain; charset=utf-8", "Content-Length": Buffer.byteLength(text) });
  res.end(text);
}

/** JSON is always offered; protobuf/CBOR-only Accept headers get 406. */
export function acceptsJson(accept: string | undefined): boolean {
  if (!accept) return true;
  return accept.split(",").some((p) => {
    const t = p.split(";")[0]!.trim().toLowerCase();
    return t === "*/*" || t === "application/*" || t.includes("json") || t.includes("yaml");
  });
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
