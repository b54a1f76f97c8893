import { describe, expect, it } from "vitest";
import { capacityOf, runsStep, windowSeconds } from "./ladder.js";

describe("windowSeconds", () => {
  const o = { oneX: 180, simulated: 900, min: 10 };
  it("measures 1x for the 1x window and shrinks with the scale down to the minimum", () => {
    expect(windowSeconds(1, o)).toBe(180);
    expect(windowSeconds(10, o)).toBe(90);
    expect(windowSeconds(60, o)).toBe(15);
    expect(windowSeconds(120, o)).toBe(10);
    expect(windowSeconds(2, o)).toBe(180);
  });
});

describe("runsStep", () => {
  it("runs every step until a miss, then only the scales always reported", () => {
    expect(runsStep(30, false, [1, 10, 60])).toBe(true);
    expect(runsStep(45, true, [1, 10, 60])).toBe(false);
    expect(runsStep(10, true, [1, 10, 60])).toBe(true);
    expect(runsStep(60, true, [1, 10, 60])).toBe(true);
  });
});

describe("capacityOf", () => {
  it("is the best rate among steps that met the target below the first miss", () => {
    const steps = [
      { scale: 10, rate: 900, p99: 40 },
      { scale: 1, rate: 90, p99: 30 },
      { scale: 30, rate: 2_500, p99: 150 },
      { scale: 20, rate: 1_700, p99: 80 },
      { scale: 60, rate: 3_000, p99: 90 },
    ];
    expect(capacityOf(steps, 100)).toEqual({ scale: 20, rate: 1_700, p99: 80 });
  });
  it("is undefined when the first step misses, and a NaN p99 (no probe) is a miss", () => {
    expect(capacityOf([{ scale: 1, rate: 90, p99: 120 }], 100)).toBeUndefined();
    expect(capacityOf([{ scale: 1, rate: 90, p99: NaN }], 100)).toBeUndefined();
  });
});
