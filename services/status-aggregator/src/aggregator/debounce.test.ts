import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Debounce } from "./debounce.js";

describe("Debounce", () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  it("fires once per window however many times it is scheduled, and not at all once cancelled", () => {
    let fired = 0;
    const d = new Debounce(100, () => fired++);
    d.schedule();
    vi.advanceTimersByTime(60);
    d.schedule();
    vi.advanceTimersByTime(40);
    expect(fired).toBe(1);
    d.schedule();
    d.cancel();
    vi.advanceTimersByTime(200);
    expect(fired).toBe(1);
  });
});
