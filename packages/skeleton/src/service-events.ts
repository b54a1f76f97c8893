// A service's Kubernetes Event recorder: reporting controller `lockstep.io/<service>`, reporting
// instance the pod, written only while this replica leads (or, where every replica decides for
// itself, by every replica about its own decisions), its series flushed by a runnable.
// `factObserver` turns every fact the service publishes into its Events (kube-events.ts), so each
// service records Events by handing it to its EventPublisher.
import { hostname } from "node:os";
import type { EventType } from "@lockstep/contracts";
import { EventRecorder, type EventSink, type FoldOptions, type KubeConfigLike } from "@lockstep/kube";
import type { BaseConfig, Logger, Runnable } from "@lockstep/runtime";
import { Counter, type Registry } from "prom-client";
import { kubeEventsFor } from "./kube-events.js";
import type { LeaderGate } from "./leader.js";

export interface ServiceEvents {
  recorder: EventRecorder;
  /** Flushes growing series until stopped. */
  runnable: Runnable;
}

/** The metric the `system` bench reads (Event writes per node change). */
export const KUBE_EVENT_WRITES_METRIC = "lockstep_kube_event_writes_total";

export function serviceEventRecorder(o: {
  service: string;
  config: Pick<BaseConfig, "POD_NAME">;
  kc: KubeConfigLike;
  leader: LeaderGate;
  logger: Logger;
  registry?: Registry;
  fold?: Partial<FoldOptions>;
  /**
   * Every replica records (the lease-coordinator: each replica grants and answers the webhook, so
   * a leader-only recorder would drop the followers' decisions, about half of them with two).
   * Default false: only the leader, for services whose followers compute what the leader acts on.
   */
  everyReplica?: boolean;
}): ServiceEvents {
  const writes = o.registry
    ? new Counter({ name: KUBE_EVENT_WRITES_METRIC, help: "Kubernetes Event API calls made (create a new Event, patch a series)", labelNames: ["op", "outcome"], registers: [o.registry] })
    : undefined;
  const recorder = new EventRecorder({
    onWrite: (op, ok) => writes?.inc({ op, outcome: ok ? "ok" : "failed" }),
    kc: o.kc,
    service: o.service,
    instance: o.config.POD_NAME ?? hostname(),
    ...(o.everyReplica ? {} : { isLeader: () => o.leader.isLeader() }),
    logger: o.logger,
    ...(o.fold ? { fold: o.fold } : {}),
  });
  return { recorder, runnable: { name: "kube-events", start: (signal) => recorder.run(signal) } };
}

/**
 * An EventPublisher observer recording each published fact's Events on `sink`; `accept` leaves out
 * facts this replica should not record (e.g. ones every replica publishes alike).
 */
export function factObserver(
  sink: EventSink | undefined,
  accept: (type: EventType<unknown>) => boolean = () => true,
): ((type: EventType<unknown>, message: unknown) => void) | undefined {
  if (!sink) return undefined;
  return (type, message) => {
    if (!accept(type)) return;
    for (const note of kubeEventsFor(type, message)) if (note.regarding.name) sink.record(note);
  };
}
