// Watch over HTTP (kube-api.md §5): chunked JSON lines, bookmarks, timeouts, 410 as an ERROR event
// followed by the end of the stream, and a bounded buffer per watcher (slow consumers are cut).
import type { ServerResponse } from "node:http";
import type { StatusBody } from "./errors.js";
import { entryJson, type Entry, type EventType, type Watcher } from "./store.js";
import type { Filter } from "./selectors.js";
import type { KubeObject } from "./types.js";

export interface WatchStreamOptions {
  filter: Filter;
  bookmarks: boolean;
  kind: string;
  apiVersion: string;
  /** Current global RV, for bookmarks. */
  currentRv: () => number;
  maxBufferBytes: number;
  /** Replaces each event's object (server-side Tables); events are then serialised one by one. */
  transform?: (obj: KubeObject) => unknown;
}

const PREFIX: Record<EventType, Buffer> = {
  ADDED: Buffer.from('{"type":"ADDED","object":'),
  MODIFIED: Buffer.from('{"type":"MODIFIED","object":'),
  DELETED: Buffer.from('{"type":"DELETED","object":'),
};
const SUFFIX = Buffer.from("}\n");

function line(entry: Entry, type: EventType): Buffer {
  const cache = (entry.lines ??= {});
  return (cache[type] ??= Buffer.concat([PREFIX[type], entryJson(entry), SUFFIX]));
}

export function startStream(res: ServerResponse): void {
  res.writeHead(200, { "Content-Type": "application/json", "Transfer-Encoding": "chunked", "Cache-Control": "no-cache, private" });
  res.flushHeaders();
  res.socket?.setNoDelay(true);
}

export function writeErrorEvent(res: ServerResponse, status: StatusBody): void {
  res.write(`${JSON.stringify({ type: "ERROR", object: status })}\n`);
}

export class WatchStream implements Watcher {
  readonly filter: Filter;
  private closed = false;
  unsubscribe: () => void = () => {};
  private timer: NodeJS.Timeout | undefined;
  onClose: () => void = () => {};

  constructor(private readonly res: ServerResponse, private readonly opts: WatchStreamOptions) {
    this.filter = opts.filter;
    res.on("close", () => this.cleanup());
  }

  get bookmarks(): boolean {
    return this.opts.bookmarks;
  }

  send(type: EventType, entry: Entry): void {
    if (this.closed) return;
    const t = this.opts.transform;
    this.res.write(t ? `{"type":"${type}","object":${JSON.stringify(t(entry.obj))}}\n` : line(entry, type));
    if (this.res.writableLength > this.opts.maxBufferBytes) this.end();
  }

  bookmark(): void {
    if (this.closed) return;
    this.res.write(
      `{"type":"BOOKMARK","object":{"kind":${JSON.stringify(this.opts.kind)},"apiVersion":${JSON.stringify(this.opts.apiVersion)},"metadata":{"resourceVersion":"${this.opts.currentRv()}","creationTimestamp":null}}}\n`,
    );
  }

  /** Closes the stream at the deadline, with a last bookmark when bookmarks were asked for. */
  setTimeout(seconds: number): void {
    this.timer = setTimeout(() => {
      if (this.opts.bookmarks) this.bookmark();
      this.end();
    }, seconds * 1000);
    this.timer.unref();
  }

  end(): void {
    if (this.closed) return;
    this.res.end();
    this.cleanup();
  }

  private cleanup(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.unsubscribe();
    this.onClose();
  }
}
