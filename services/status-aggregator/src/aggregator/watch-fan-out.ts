// WatchUpdateStatus fan-out: every watcher gets the full status first, then at most one message per
// interval carrying the status (without nodes) and the node insights that changed meanwhile (the
// latest per node), so a burst costs one status computation, not one per flush. Every message
// carries the view's freshness; a flip between fresh and stale is sent at once, alone, so a client
// watching a cluster where nothing moves still learns that its picture may be out of date.
import type { NodeInsight, StateFreshness, UpdateStatus, WatchUpdateStatusResponse } from "@lockstep/contracts";

export type WatchListener = (message: WatchUpdateStatusResponse) => void;

/** What the messages are built from (the aggregator). */
export interface WatchSource {
  /** A node's insight as the view holds it now. */
  nodeInsight(name: string): NodeInsight | undefined;
  /** The status now; throws while it cannot be evaluated (no ClusterVersion yet). */
  status(omitNodes: boolean): UpdateStatus;
  /** How old the view is now; undefined when not known. */
  freshness(): StateFreshness | undefined;
}

export class WatchFanOut {
  private readonly watchers = new Set<{ listener: WatchListener; omitNodes: boolean }>();
  /** Nodes whose insight changed since the last message (built from the view when sent). */
  private readonly pendingChanged = new Set<string>();
  private readonly pendingRemoved = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private lastSent = 0;

  constructor(
    private readonly source: WatchSource,
    private readonly minIntervalMs: number,
  ) {}

  get count(): number {
    return this.watchers.size;
  }

  /** Subscribes; the first message is the full status (nodes included unless omitted). */
  watch(omitNodes: boolean, listener: WatchListener): () => void {
    const w = { listener, omitNodes };
    listener({ status: this.statusOrNone(omitNodes), changedNodes: [], removedNodes: [], freshness: this.source.freshness() });
    this.watchers.add(w);
    return () => this.watchers.delete(w);
  }

  /** Rows changed or removed by a recomputation (no rows: a refresh, durations move with time). */
  changed(changed: ReadonlyArray<{ record: { name: string } }>, removed: readonly string[]): void {
    if (this.watchers.size === 0) return;
    for (const { record } of changed) {
      this.pendingChanged.add(record.name);
      this.pendingRemoved.delete(record.name);
    }
    for (const r of removed) {
      this.pendingRemoved.add(r);
      this.pendingChanged.delete(r);
    }
    const wait = this.lastSent + this.minIntervalMs - Date.now();
    if (wait <= 0) this.send();
    else if (!this.timer) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.send();
      }, wait);
    }
  }

  /** The view turned stale or fresh again: every watcher hears it now, without waiting for a change. */
  freshnessChanged(): void {
    const freshness = this.source.freshness();
    for (const w of this.watchers) w.listener({ status: undefined, changedNodes: [], removedNodes: [], freshness });
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private send(): void {
    this.lastSent = Date.now();
    // Built before status() below, which may recompute: these are the rows as of the recomputations
    // that queued them (their newest), as the view holds them now.
    const changedNodes: NodeInsight[] = [];
    for (const name of this.pendingChanged) {
      const insight = this.source.nodeInsight(name);
      if (insight) changedNodes.push(insight);
    }
    const removed = [...this.pendingRemoved];
    this.pendingChanged.clear();
    this.pendingRemoved.clear();
    const status = this.statusOrNone(true);
    const freshness = this.source.freshness();
    for (const w of this.watchers) w.listener({ status, changedNodes, removedNodes: removed, freshness });
  }

  private statusOrNone(omitNodes: boolean): UpdateStatus | undefined {
    try {
      return this.source.status(omitNodes);
    } catch {
      return undefined; // not evaluable yet (no ClusterVersion): the node changes alone
    }
  }
}
