// WatchUpdateStatus fan-out of the aggregator's snapshots: every watcher gets the full status first,
// then at most one message per interval carrying the latest snapshot's status (without nodes) and
// the node insights that changed in the snapshots since the last message (as the latest holds them),
// so a burst costs one message, not one per flush. Every message carries the snapshot's freshness;
// a flip between fresh and stale is sent at once, alone, so a client watching a cluster where
// nothing moves still learns that its picture may be out of date.
import type { NodeInsight, StateFreshness, UpdateStatus, WatchUpdateStatusResponse } from "@lockstep/contracts";
import type { SnapshotCause } from "./snapshot.js";

export type WatchListener = (message: WatchUpdateStatusResponse) => void;

/** What messages are built from (a StatusSnapshot). */
export interface WatchSnapshot {
  readonly cause: SnapshotCause;
  /** Rows added or changed, and removed, since the previous snapshot. */
  readonly changed: readonly string[];
  readonly removed: readonly string[];
  /** Without nodes; undefined while the status cannot be evaluated (no ClusterVersion yet). */
  readonly status: UpdateStatus | undefined;
  readonly freshness: StateFreshness | undefined;
  nodeInsight(name: string): NodeInsight | undefined;
  /** Throws while the status cannot be evaluated. */
  statusWithNodes(): UpdateStatus;
}

export class WatchFanOut {
  private readonly watchers = new Set<{ listener: WatchListener; omitNodes: boolean }>();
  private latest: WatchSnapshot | undefined;
  /** Nodes changed or removed in snapshots not sent yet. */
  private readonly pendingChanged = new Set<string>();
  private readonly pendingRemoved = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private lastSent = 0;

  constructor(private readonly minIntervalMs: number) {}

  get count(): number {
    return this.watchers.size;
  }

  /** Subscribes; the first message is the latest snapshot's full status (nodes included unless omitted). */
  watch(omitNodes: boolean, listener: WatchListener): () => void {
    const w = { listener, omitNodes };
    const s = this.latest;
    listener({ status: s && (omitNodes ? s.status : withNodesOrNone(s)), changedNodes: [], removedNodes: [], freshness: s?.freshness });
    this.watchers.add(w);
    return () => this.watchers.delete(w);
  }

  /** A new snapshot: a freshness flip goes out now, anything else within the interval. */
  publish(s: WatchSnapshot): void {
    this.latest = s;
    // A tick moves only time: watchers get that with their periodic refresh.
    if (this.watchers.size === 0 || s.cause === "tick") return;
    if (s.cause === "freshness") {
      // Not held back by the interval: nothing else may come for a long time.
      for (const w of this.watchers) w.listener({ status: undefined, changedNodes: [], removedNodes: [], freshness: s.freshness });
      return;
    }
    for (const name of s.changed) {
      this.pendingChanged.add(name);
      this.pendingRemoved.delete(name);
    }
    for (const r of s.removed) {
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

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private send(): void {
    const s = this.latest;
    if (!s) return;
    this.lastSent = Date.now();
    const changedNodes: NodeInsight[] = [];
    for (const name of this.pendingChanged) {
      const insight = s.nodeInsight(name);
      if (insight) changedNodes.push(insight);
    }
    const removedNodes = [...this.pendingRemoved];
    this.pendingChanged.clear();
    this.pendingRemoved.clear();
    for (const w of this.watchers) w.listener({ status: s.status, changedNodes, removedNodes, freshness: s.freshness });
  }
}

function withNodesOrNone(s: WatchSnapshot): UpdateStatus | undefined {
  try {
    return s.statusWithNodes();
  } catch {
    return undefined; // not evaluable yet (no ClusterVersion): the node changes alone
  }
}
