// At most one recomputation per window, the first of a quiet spell at once: a change waits only
// for the rest of the window since the last recomputation, not a whole window after it arrived.
// Under a steady stream this still costs one recomputation per window; a lone change (a cordon
// on a quiet cluster) is recomputed on the next turn of the event loop, with whatever arrived in
// the same read from the socket.

export class Debounce {
  private timer: NodeJS.Timeout | undefined;
  private lastFired = -Infinity;

  constructor(
    private readonly ms: number,
    private readonly fire: () => void,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Fires once: at once if the last firing is a window ago, else when its window ends. */
  schedule(): void {
    if (this.timer) return;
    const wait = Math.max(0, this.lastFired + this.ms - this.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.lastFired = this.now();
      this.fire();
    }, wait);
  }

  /** Forgets a scheduled firing (the work was done another way, or the process stops). */
  cancel(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
