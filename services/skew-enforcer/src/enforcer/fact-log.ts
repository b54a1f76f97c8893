// The skew-enforcer's side of the event plane: reads back the newest fact of each kind it publishes
// and publishes the due ones (facts.ts decides which).
import { jetstreamManager, type JetStreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { EventPublisher, type PublishedObserver } from "@lockstep/bus";
import { decode, Events, EVENTS_STREAM, type EventType } from "@lockstep/contracts";
import type { DueFact, LastFacts } from "./facts.js";

export class FactLog {
  private readonly publisher: EventPublisher;
  private jsm: JetStreamManager | undefined;
  /** What this process knows to be the newest facts; refreshed from the stream before publishing. */
  last: LastFacts = {};

  constructor(
    private readonly nc: NatsConnection,
    source: string,
    observe?: PublishedObserver,
  ) {
    this.publisher = new EventPublisher(nc, source, observe);
  }

  /** Reads the newest `skew.evaluated`, `upgradeable.changed` and `update.completed` from the stream. */
  async refresh(): Promise<LastFacts> {
    const [skew, upgradeable, completed] = await Promise.all([
      this.newest(Events.skewEvaluated),
      this.newest(Events.upgradeableChanged),
      this.newest(Events.updateCompleted),
    ]);
    this.last = {
      skewEvaluated: skew?.message.report ? { seq: skew.seq, report: skew.message.report } : undefined,
      upgradeableChanged: upgradeable ? { seq: upgradeable.seq, upgradeable: upgradeable.message.upgradeable, reason: upgradeable.message.reason } : undefined,
      updateCompleted: completed ? { seq: completed.seq, version: completed.message.version } : undefined,
    };
    return this.last;
  }

  /** Publishes one fact and records it as the newest of its kind. Returns false for a duplicate id. */
  async publish(fact: DueFact): Promise<boolean> {
    let ack;
    switch (fact.kind) {
      case "skewEvaluated":
        ack = await this.publisher.publish(Events.skewEvaluated, fact.message, { id: fact.id });
        this.last.skewEvaluated = { seq: ack.seq, report: fact.message.report! };
        break;
      case "upgradeableChanged":
        ack = await this.publisher.publish(Events.upgradeableChanged, fact.message, { id: fact.id });
        this.last.upgradeableChanged = { seq: ack.seq, upgradeable: fact.message.upgradeable, reason: fact.message.reason };
        break;
      case "updateCompleted":
        ack = await this.publisher.publish(Events.updateCompleted, fact.message, { id: fact.id });
        this.last.updateCompleted = { seq: ack.seq, version: fact.message.version };
        break;
    }
    return !ack.duplicate;
  }

  private async newest<T>(type: EventType<T>): Promise<{ seq: number; message: T } | undefined> {
    this.jsm ??= await jetstreamManager(this.nc);
    const stored = await this.jsm.streams.getMessage(EVENTS_STREAM, { last_by_subj: type.subject });
    if (!stored) return undefined;
    try {
      return { seq: stored.seq, message: decode(type.codec, type.typeName, stored.data) };
    } catch {
      // An undecodable fact counts as none: the next one supersedes it.
      return undefined;
    }
  }
}
