// insight.changed facts for row transitions: queued when decided, built and sent when there is room
// (PublishQueue: bounded in flight, retried with backoff, given up after a number of attempts).
import { createHash } from "node:crypto";
import type { InsightChanged } from "@lockstep/contracts";
import type { Logger } from "pino";
import { nodeInsightToProto } from "../proto/to-proto.js";
import type { Transition } from "../view/status-view.js";
import { PublishQueue } from "./publish-queue.js";

export type PublishInsightChanged = (event: InsightChanged, id: string) => Promise<void>;

/** Deterministic id: the same transition decided by the same inputs is one fact, whoever publishes it. */
export function insightChangedId(t: Transition): string {
  const h = createHash("sha256")
    .update([t.node, t.previousAssessment, t.previousPhase, t.record.assessment, t.record.phase, String(t.inputsRevision)].join("\u0000"))
    .digest("hex");
  return `insight.changed.${h.slice(0, 32)}`;
}

/** A transition waiting to be published; the event is built when it is sent, not in the recompute. */
interface PendingFact {
  transition: Transition;
  /** The row's transition time (the insight is built from the record when the fact is sent). */
  since: bigint;
  /** When the transition was decided (ms); the fact's occurredAt however late it is sent. */
  at: number;
}

export interface InsightEventsOptions {
  logger: Logger;
  /** Where facts go until a publisher is attached (tests). */
  fallback?: PublishInsightChanged;
  onPublished?: (ok: boolean) => void;
  maxInFlight?: number;
  maxAttempts?: number;
  backoffMs?: number;
}

export class InsightEvents {
  private publisher: PublishInsightChanged | undefined;
  private readonly queue: PublishQueue<PendingFact>;

  constructor(private readonly o: InsightEventsOptions) {
    this.queue = new PublishQueue<PendingFact>({
      send: (f) => this.send(f),
      maxInFlight: o.maxInFlight,
      maxAttempts: o.maxAttempts,
      backoffMs: o.backoffMs,
      onRetry: (f, err, attempt) => o.logger.debug({ err, node: f.transition.node, attempt }, "insight.changed publish failed; retrying"),
      onSettled: (f, ok, err, attempts) => {
        o.onPublished?.(ok);
        if (!ok) o.logger.warn({ err, node: f.transition.node, attempts }, "insight.changed publish failed; giving up");
      },
    });
  }

  /** Sets where insight.changed facts go (the runnable, once connected to NATS). */
  attach(publish: PublishInsightChanged): void {
    this.publisher = publish;
  }

  /** A transition decided at `since` (its row's transition time); dropped while there is nowhere to send it. */
  push(t: Transition, since: bigint): void {
    if (!this.publisher && !this.o.fallback) return;
    this.queue.push({ transition: t, since, at: Date.now() });
  }

  /** Facts not yet acknowledged (queued, in flight or waiting for a retry). */
  get backlog(): number {
    return this.queue.pending;
  }

  /** Resolves when every fact queued so far is acknowledged or given up. */
  drain(): Promise<void> {
    return this.queue.idle();
  }

  /** Drops facts not yet sent. */
  stop(): void {
    this.queue.stop();
  }

  private send({ transition: t, since, at }: PendingFact): Promise<void> {
    const publish = this.publisher ?? this.o.fallback;
    if (!publish) return Promise.resolve();
    const id = insightChangedId(t);
    const event: InsightChanged = {
      meta: { id, occurredAt: new Date(at), source: "", object: { group: "", version: "v1", kind: "Node", namespace: "", name: t.node, uid: "" }, correlationId: "" },
      node: t.node,
      pool: t.pool,
      previousAssessment: t.previousAssessment,
      previousPhase: t.previousPhase,
      insight: nodeInsightToProto(t.record, since),
    };
    return publish(event, id);
  }
}
