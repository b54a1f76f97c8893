// The event log the demo shows: every Lockstep event, one line each.
import { consumeEvents } from "@lockstep/bus";
import { describeEvent, EVENT_SUBJECTS } from "@lockstep/contracts";
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

// One sentence per event lives in @lockstep/contracts (describe-event.ts), shared with `lockstep events`.
export { describeEvent };

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
