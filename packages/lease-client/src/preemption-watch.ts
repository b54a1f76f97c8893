// The Watch streams behind watchPreemption. A handle with its own client watches its node; handles
// sharing one client (CoordinatorNodeLeaser: one per actor, thousands of holds in a large rollout)
// share one stream of every lease instead of a stream each, so the coordinator does not fan every
// lease change out to thousands of streams. A broken stream is opened again (it starts with the
// current leases, so a mark made while it was down is still seen); a refusal that retrying cannot
// fix (no `watch` right, an older coordinator) ends watching, leaving the renew path.
import * as grpc from "@grpc/grpc-js";
import type { LeaseServiceClient, NodeLease, WatchResponse } from "@lockstep/contracts";

type Listener = (lease: NodeLease) => void;

const FINAL = new Set([grpc.status.PERMISSION_DENIED, grpc.status.UNAUTHENTICATED, grpc.status.UNIMPLEMENTED, grpc.status.INVALID_ARGUMENT]);

export class LeaseWatch {
  private readonly listeners = new Map<string, Set<Listener>>();
  private stream: grpc.ClientReadableStream<WatchResponse> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private ended = false;

  constructor(
    private readonly client: LeaseServiceClient,
    /** "" watches every node. */
    private readonly node: string,
    private readonly reopenMs: number,
    private readonly onEnd: () => void = () => undefined,
  ) {}

  /** Calls `fn` with every version of `node`'s lease; returns the unsubscribe. */
  add(node: string, fn: Listener): () => void {
    let set = this.listeners.get(node);
    if (set === undefined) this.listeners.set(node, (set = new Set()));
    set.add(fn);
    if (this.stream === undefined && this.timer === undefined && !this.ended) this.open();
    return () => {
      set.delete(fn);
      if (set.size === 0) this.listeners.delete(node);
      if (this.listeners.size === 0) this.close();
    };
  }

  private open(): void {
    let stream: grpc.ClientReadableStream<WatchResponse>;
    try {
      stream = this.client.watch({ node: this.node });
    } catch {
      // The client was closed (a leaser closed while a preempted hold waits for its safe point):
      // nothing can be watched through it any more, and a throw here would escape a timer.
      return this.close();
    }
    this.stream = stream;
    stream.on("data", (m: WatchResponse) => {
      const l = m.lease;
      if (l === undefined) return;
      for (const fn of [...(this.listeners.get(l.node) ?? [])]) fn(l);
    });
    const broken = (err?: grpc.ServiceError) => {
      if (this.stream !== stream) return;
      this.stream = undefined;
      if (this.ended || this.listeners.size === 0) return;
      if (err !== undefined && FINAL.has(err.code)) return this.close();
      this.timer = setTimeout(() => {
        this.timer = undefined;
        if (!this.ended && this.listeners.size > 0) this.open();
      }, this.reopenMs);
    };
    stream.on("error", (err: grpc.ServiceError) => broken(err));
    stream.on("end", () => broken());
  }

  private close(): void {
    // Once only: a watch that gave up is closed again when its last listener leaves.
    if (this.ended) return;
    this.ended = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    const s = this.stream;
    this.stream = undefined;
    s?.cancel();
    this.listeners.clear();
    this.onEnd();
  }
}

const shared = new WeakMap<LeaseServiceClient, LeaseWatch>();

/** One all-node stream per shared client, opened on its first listener and ended with its last. */
export function sharedLeaseWatch(client: LeaseServiceClient, reopenMs: number): LeaseWatch {
  let w = shared.get(client);
  if (w === undefined) {
    const created = new LeaseWatch(client, "", reopenMs, () => {
      // A successor may hold the client's entry by now: never unshare it.
      if (shared.get(client) === created) shared.delete(client);
    });
    shared.set(client, created);
    w = created;
  }
  return w;
}
