// Changes arriving within a window cost one recomputation: the first schedules it, the rest wait.

export class Debounce {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly ms: number,
    private readonly fire: () => void,
  ) {}

  /** Fires once, `ms` after the first call since the last firing (or cancel). */
  schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.fire();
    }, this.ms);
  }

  /** Forgets a scheduled firing (the work was done another way, or the process stops). */
  cancel(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
