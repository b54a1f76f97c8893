import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Debounce } from "./debounce.js";

describe("Debounce", () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  it("fires the first change of a quiet spell on the next turn, not a window later", () => {
    let fired = 0;
    const d = new Debounce(100, () => fired++, () => Date.now());
    d.schedule();
    d.schedule();
    expect(fired).toBe(0); // never synchronously: what arrives in the same turn joins it
    vi.advanceTimersByTime(1);
    expect(fired).toBe(1);
  });

  it("fires at most once per window however many times it is scheduled, and not at all once cancelled", () => {
    let fired = 0;
    const d = new Debounce(100, () => fired++, () => Date.now());
    d.schedule();
    vi.advanceTimersByTime(1);
    expect(fired).toBe(1);
    // Changes within the window wait for its end, together.
    vi.advanceTimersByTime(29);
    d.schedule();
    vi.advanceTimersByTime(30);
    d.schedule();
    vi.advanceTimersByTime(39);
    expect(fired).toBe(1);
    vi.advanceTimersByTime(1);
    expect(fired).toBe(2);
    d.schedule();
    d.cancel();
    vi.advanceTimersByTime(200);
    expect(fired).toBe(2);
  });
});
