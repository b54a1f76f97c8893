// The event log the demo shows: every Lockstep event, one line each.
import { consumeEvents } from "@lockstep/bus";
import { EVENT_SUBJECTS, OperationType, type DecodedEvent } from "@lockstep/contracts";
import { DeliverPolicy } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import type { KubeSim } from "@lockstep/kube-sim";

type AdmissionCall = KubeSim["admission"]["calls"][number];

/** The request an admission call judged, as the API server's audit log names it. */
export function admissionRequest(c: AdmissionCall): string {
  const verb = c.subResource === "eviction" ? "evict" : c.operation === "UPDATE" ? "update" : c.operation.toLowerCase();
  const what = c.subResource === "eviction" ? `pod ${c.namespace}/${c.name}` : `${c.resource.resource.replace(/s$/, "")} ${c.namespace ? `${c.namespace}/` : ""}${c.name}`;
  return `${verb} ${what} by ${c.userInfo.username}`;
}

/** One line for a refusal the API server returned because a webhook said no. */
export function describeAdmissionDenial(c: AdmissionCall, times: number): string {
  return `API server refused: ${admissionRequest(c)} (HTTP ${c.code})${times > 1 ? ` — ${times} times so far` : ""}: ${c.message}`;
}

export interface LoggedEvent {
  at: Date;
  subject: string;
  fact: string;
  text: string;
  message: any;
}

const op = (o: OperationType | undefined) => (o === undefined ? "" : OperationType[o]?.replace("OPERATION_TYPE_", "") ?? String(o));

/** One line per event, naming what happened and to what. */
export function describeEvent(e: DecodedEvent): string {
  const m = e.message as any;
  switch (e.type.subject.split(".").slice(3).join(".")) {
    case "lease.granted":
      return `lease granted: ${m.lease?.node} to ${m.lease?.holder} (${op(m.lease?.operation)})${m.warnings?.length ? ` — ${m.warnings.map((w: any) => w.message).join("; ")}` : ""}`;
    case "lease.denied":
      return `lease denied: ${m.node} for ${m.requester} (${op(m.operation)}): ${m.reason}`;
    case "lease.released":
      return `lease released: ${m.lease?.node} by ${m.lease?.holder}`;
    case "lease.expired":
      return `lease expired: ${m.lease?.node} (${m.lease?.holder})`;
    case "lease.preempted":
      return `lease preempted: ${m.lease?.node} from ${m.previous?.holder} to ${m.lease?.holder}: ${m.reason}`;
    case "lease.preemption-withdrawn":
      return `lease preemption withdrawn: ${m.lease?.node}: ${m.reason}`;
    case "warning.raised":
      return `warning: ${m.warning?.message}`;
    case "skew.evaluated":
      return `skew evaluated: upgradeable=${m.report?.upgradeable}${m.report?.reason ? ` (${m.report.reason})` : ""}`;
    case "upgradeable.changed":
      return `upgradeable changed: ${m.upgradeable}${m.reason ? ` — ${m.reason}` : ""}`;
    case "update.completed":
      return `update completed: ${m.version} on every node of ${m.pools?.join(", ")} (${m.nodes} nodes)`;
    case "bootimage.updated":
      return `boot image updated: MachineSet ${m.machineSet?.name} ${m.previousImage} → ${m.image}`;
    case "bootimage.skipped":
      return `boot image skipped: MachineSet ${m.machineSet?.name}: ${m.reason}`;
    case "bootimage.update-failed":
      return `boot image update failed: MachineSet ${m.machineSet?.name}: ${m.error}`;
    case "insight.changed":
      return `node ${m.node} (${m.pool}): ${m.previousAssessment || "-"}/${m.previousPhase || "-"} → ${m.insight?.record?.assessment}/${m.insight?.record?.phase}`;
    default:
      return e.type.subject;
  }
}

export class EventLog {
  readonly events: LoggedEvent[] = [];
  private listeners: Array<(e: LoggedEvent) => void> = [];

  /** Consumes every event from the start of the stream until the signal aborts. */
  start(nc: NatsConnection, signal: AbortSignal): Promise<void> {
    return consumeEvents(nc, {
      durable: `demo-${process.pid}-${Date.now()}`,
      filterSubject: EVENT_SUBJECTS,
      deliverPolicy: DeliverPolicy.All,
      signal,
      handler: (e) => {
        const logged = { at: new Date(), subject: e.type.subject, fact: e.type.subject.split(".").slice(3).join("."), text: describeEvent(e), message: e.message };
        this.events.push(logged);
        for (const l of this.listeners) l(logged);
      },
    });
  }

  /** An entry that is not a Lockstep event but belongs in the same log (the supervisor's reports). */
  note(fact: string, text: string, message: unknown = {}): void {
    const logged = { at: new Date(), subject: `demo.${fact}`, fact, text, message };
    this.events.push(logged);
    for (const l of this.listeners) l(logged);
  }

  /**
   * Adds kube-sim's webhook refusals to the log (fact `admission.denied`): the first of each kind
   * of request (same requester, verb and object), then again at 10, 100, … so retries show without
   * flooding the log.
   */
  followAdmission(admission: KubeSim["admission"]): void {
    const seen = new Map<string, { webhook: string; n: number }>();
    const previous = admission.onCall;
    admission.onCall = (c) => {
      previous?.(c);
      if (c.outcome !== "denied") return;
      const key = admissionRequest(c);
      // One request may be refused by several webhooks of the configuration: count it once.
      const s = seen.get(key) ?? { webhook: c.webhook, n: 0 };
      if (s.webhook !== c.webhook) return;
      const n = ++s.n;
      seen.set(key, s);
      if (n === 1 || Math.log10(n) % 1 === 0) this.note("admission.denied", describeAdmissionDenial(c, n), { ...c, request: undefined, times: n });
    };
  }

  onEvent(l: (e: LoggedEvent) => void): void {
    this.listeners.push(l);
  }

  count(fact: string, pred: (m: any) => boolean = () => true): number {
    return this.events.filter((e) => e.fact === fact && pred(e.message)).length;
  }
}
