// A service's Kubernetes Event recorder: reporting controller `lockstep.io/<service>`, reporting
// instance the pod, written only while this replica leads, its series flushed by a runnable.
// `factObserver` turns every fact the service publishes into its Events (kube-events.ts), so each
// service records Events by handing it to its EventPublisher.
import { hostname } from "node:os";
import type { EventType } from "@lockstep/contracts";
import { EventRecorder, type EventSink, type FoldOptions, type KubeConfigLike } from "@lockstep/kube";
import type { BaseConfig, Logger, Runnable } from "@lockstep/runtime";
import { kubeEventsFor } from "./kube-events.js";
import type { LeaderGate } from "./leader.js";

export interface ServiceEvents {
  recorder: EventRecorder;
  /** Flushes growing series until stopped. */
  runnable: Runnable;
}

export function serviceEventRecorder(o: { service: string; config: Pick<BaseConfig, "POD_NAME">; kc: KubeConfigLike; leader: LeaderGate; logger: Logger; fold?: Partial<FoldOptions> }): ServiceEvents {
  const recorder = new EventRecorder({
    kc: o.kc,
    service: o.service,
    instance: o.config.POD_NAME ?? hostname(),
    isLeader: () => o.leader.isLeader(),
    logger: o.logger,
    ...(o.fold ? { fold: o.fold } : {}),
  });
  return { recorder, runnable: { name: "kube-events", start: (signal) => recorder.run(signal) } };
}

/** An EventPublisher observer recording each published fact's Events on `sink`. */
export function factObserver(sink: EventSink | undefined): ((type: EventType<unknown>, message: unknown) => void) | undefined {
  if (!sink) return undefined;
  return (type, message) => {
    for (const note of kubeEventsFor(type, message)) if (note.regarding.name) sink.record(note);
  };
}
