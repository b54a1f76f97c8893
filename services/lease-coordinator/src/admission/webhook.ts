// The lease webhook: a validating admission webhook (HTTPS, admission.k8s.io/v1 AdmissionReview at
// /validate) that refuses a disruptive request on a node leased by another holder. It reads the
// coordinator's own lease view; while that view is not trustworthy (not synced, or the state plane
// stale) it answers 503, so the webhook's failurePolicy decides, as for any webhook that is down.
import { createServer, type Server } from "node:https";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "pino";
import type { PolicyConfig } from "@lockstep/lease-policy";
import type { NodeHold } from "../coordinator/coordinator.js";
import { classify, DEFAULT_CLASSIFY, type ClassifyOptions, type NodeDisruption } from "./disruption.js";
import type { NodeLookups } from "./node-lookups.js";
import { podDeleter, podDeleteVerdict } from "./pod-delete.js";
import { admissionResponse, parseAdmissionReview, type AdmissionRequest } from "./review.js";
import { requesterOf, verdict, type ActsFor } from "./verdict.js";

/** An AdmissionReview is at most a few objects; kube-apiserver itself caps requests at 3 MiB. */
const MAX_BODY_BYTES = 3 * 1024 * 1024;

export type ReviewOutcome = "allowed" | "refused" | "break-glass" | "warned" | "not-disruptive" | "error";

/** What the webhook reads of the coordinator: its lease view, and where its audits go. */
export interface LeaseHolds {
  /** The node's current hold, or why the view cannot be trusted now (starting, stale). */
  holdOf(node: string): NodeHold | undefined | { unavailable: string };
  /** Publishes a break-glass override of a lease (or, with `code`, another admitted disruption) as a warning event. */
  auditBreakGlass(node: string, message: string, code?: string): void;
}

export interface LeaseWebhookOptions {
  tls: { cert: Buffer | string; key: Buffer | string };
  port: number;
  host?: string;
  policy: PolicyConfig;
  /** The coordinator's lease view, read per review; break-glass overrides and warned disruptions are audited there. */
  holds: LeaseHolds;
  lookups: NodeLookups;
  actsFor: readonly ActsFor[];
  breakGlassGroups: readonly string[];
  logger: Logger;
  /** Exempt taint keys and the pod-deletion policy (ADMISSION_TAINT_EXEMPT_KEYS, ADMISSION_POD_DELETE). */
  classify?: ClassifyOptions;
  /** A refused (not dry-run) request: for a Kubernetes Event on the node and lockstep_webhook_refusals_total (`operation`: the one the request starts). */
  onRefused?(r: { node: string; requester: string; operation: string; what: string; hold: NodeHold | undefined }): void;
  onReview?(outcome: ReviewOutcome, seconds: number): void;
  clock?: () => number;
}

export interface LeaseWebhook {
  port: number;
  stop(): Promise<void>;
}

class HttpFailure extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** How long the rest of an oversized body is read and dropped after the 413 before the connection is cut. */
const DRAIN_MS = 10_000;

/**
 * The body, or a 413 as soon as it passes the bound (or its Content-Length says it will): nothing
 * more is kept, the answer goes out at once, and the rest is read and dropped (see `drain`).
 */
function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const tooLarge = () => new HttpFailure(413, `request body over ${MAX_BODY_BYTES} bytes`);
    if (Number(req.headers["content-length"] ?? 0) > MAX_BODY_BYTES) return reject(tooLarge());
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY_BYTES) return void chunks.push(c);
      req.off("data", onData);
      chunks.length = 0;
      reject(tooLarge());
    };
    req.on("data", onData);
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

/**
 * Reads and drops what is left of a request answered early, so the sender reads the answer instead
 * of a connection reset; a sender still sending after DRAIN_MS is cut off (it has had its answer).
 */
function drain(req: IncomingMessage): void {
  if (req.complete) return;
  const timer = setTimeout(() => req.socket.destroy(), DRAIN_MS);
  timer.unref();
  req.once("close", () => clearTimeout(timer));
  req.resume();
}

function send(res: ServerResponse, status: number, body: object | string): void {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  res.writeHead(status, { "content-type": typeof body === "string" ? "text/plain; charset=utf-8" : "application/json" });
  res.end(text);
}

/** The node a request disrupts and how, or undefined when it disrupts none. */
async function disruptedNode(req: AdmissionRequest, lookups: NodeLookups, o: ClassifyOptions): Promise<NodeDisruption | undefined> {
  const d = classify(req, o);
  if (d.kind === "none") return undefined;
  if (d.kind === "node") return d;
  const node = d.kind === "pod" ? await lookups.podNode(d.namespace, d.pod) : await lookups.machineNode(d.namespace, d.machine);
  if (node === undefined) return undefined;
  return d.kind === "machine" && d.onlyWhileHeldFor ? { node, operation: d.operation, what: d.what, onlyWhileHeldFor: d.onlyWhileHeldFor } : { node, operation: d.operation, what: d.what };
}

export async function startLeaseWebhook(o: LeaseWebhookOptions): Promise<LeaseWebhook> {
  const clock = o.clock ?? Date.now;
  const classifyOptions = o.classify ?? DEFAULT_CLASSIFY;

  const review = async (req: AdmissionRequest): Promise<{ outcome: ReviewOutcome; answer: object }> => {
    const found = await disruptedNode(req, o.lookups, classifyOptions);
    if (found === undefined) return { outcome: "not-disruptive", answer: admissionResponse(req.uid, { allowed: true }) };
    const hold = o.holds.holdOf(found.node);
    if (hold !== undefined && "unavailable" in hold) throw new HttpFailure(503, hold.unavailable);
    const judged = verdict(found, hold, requesterOf(req.userInfo, o.actsFor, o.breakGlassGroups), clock(), o.policy);
    const v = found.podDelete ? podDeleteVerdict(judged, podDeleter(req.userInfo, found.node, o.actsFor), classifyOptions.podDelete) : judged;
    if (!v.allowed) {
      o.logger.info({ node: found.node, user: req.userInfo.username, resource: req.resource, subResource: req.subResource, name: req.name, dryRun: req.dryRun }, "admission refused: node leased by another holder");
      if (!req.dryRun) o.onRefused?.({ node: found.node, requester: req.userInfo.username, operation: found.operation, what: found.what, hold: hold === undefined || "unavailable" in hold ? undefined : hold });
      return { outcome: "refused", answer: admissionResponse(req.uid, { allowed: false, message: v.message }) };
    }
    if ("warning" in v) {
      o.logger.info({ node: found.node, user: req.userInfo.username, name: req.name, namespace: req.namespace, dryRun: req.dryRun }, "admission warned: pod deleted on a node leased by another holder");
      if (!req.dryRun) o.holds.auditBreakGlass(found.node, v.warning, "PodDeleteOnLeasedNode");
      return { outcome: "warned", answer: admissionResponse(req.uid, { allowed: true, warnings: [v.warning] }) };
    }
    if (v.audit !== undefined) {
      o.logger.warn({ node: found.node, user: req.userInfo.username, groups: req.userInfo.groups, audit: v.audit, dryRun: req.dryRun }, "admission allowed by break-glass");
      if (!req.dryRun) o.holds.auditBreakGlass(found.node, v.audit);
      return { outcome: "break-glass", answer: admissionResponse(req.uid, { allowed: true, warnings: [v.audit] }) };
    }
    return { outcome: "allowed", answer: admissionResponse(req.uid, { allowed: true }) };
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const start = process.hrtime.bigint();
    let outcome: ReviewOutcome = "error";
    try {
      const path = (req.url ?? "").split("?")[0];
      if (path === "/healthz") return send(res, 200, "ok");
      if (path !== "/validate") throw new HttpFailure(404, `no such path ${path}; the webhook serves POST /validate`);
      if (req.method !== "POST") throw new HttpFailure(405, "POST an admission.k8s.io/v1 AdmissionReview");
      let body: unknown;
      try {
        body = JSON.parse((await readBody(req)).toString("utf8"));
      } catch (err) {
        if (err instanceof HttpFailure) throw err;
        throw new HttpFailure(400, `the body is not JSON: ${(err as Error).message}`);
      }
      const parsed = parseAdmissionReview(body);
      if (!parsed.ok) throw new HttpFailure(400, parsed.error);
      const r = await review(parsed.request);
      outcome = r.outcome;
      send(res, 200, r.answer);
    } catch (err) {
      const status = err instanceof HttpFailure ? err.status : 500;
      drain(req); // an unread body is dropped, or the sender sees a broken pipe instead of the answer
      if (status >= 500) o.logger.warn({ err: (err as Error).message }, "admission review failed");
      send(res, status, (err as Error).message);
    } finally {
      o.onReview?.(outcome, Number(process.hrtime.bigint() - start) / 1e9);
    }
  };

  const server: Server = createServer({ cert: o.tls.cert, key: o.tls.key }, (req, res) => void handle(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(o.port, o.host ?? "0.0.0.0", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  o.logger.info({ port }, "lease webhook listening");
  return {
    port,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
