import { describe, expect, it } from "vitest";
import { baselineDuration, estimateCompletion, timewiseComplete } from "./eta.js";
import { HOUR, MINUTE, SECOND } from "./time.js";

const m = (n: number): bigint => BigInt(n) * MINUTE;

describe("estimateCompletion", () => {
  // openshift/oc controlplane_test.go TestEstimateCompletion: baseline, toLastObservedProgress, updatingFor, c → estimate.
  it.each([
    [HOUR, m(30), m(30), 0, m(36)],
    [HOUR, m(30), m(31), 0, m(35)],
    [HOUR, m(30), m(30), 0.2, HOUR + m(9)],
    [HOUR, m(30), m(35), 0.2, HOUR + m(3)],
    [HOUR, m(30), m(30), 0.75, m(50)],
    [HOUR, m(20), m(20), 0.99, m(4) + 50n * SECOND],
    [m(80), m(4), m(10), 0.05, HOUR + m(24)],
    [HOUR, m(30), m(30), 1, 0n],
  ])("baseline %s, toLast %s, updatingFor %s, c=%s", (baseline, toLast, updatingFor, c, expected) => {
    expect(estimateCompletion(baseline, toLast, updatingFor, c)).toBe(expected);
  });

  it("goes negative below −10 min for a stalled update (spec §9.9)", () => {
    expect(estimateCompletion(HOUR, m(50), 2n * HOUR, 32 / 33)).toBe(-(m(40) + 16n * SECOND));
  });

  it("goes slightly negative for a slow update (spec §9.9)", () => {
    expect(estimateCompletion(HOUR, m(30), HOUR, 30 / 33)).toBe(-(m(2) + 44n * SECOND));
  });
});

describe("timewiseComplete", () => {
  it.each([
    [0, -0.0308],
    [0.03, 0.0446],
    [0.12, 0.2296],
    [0.5, 0.3895],
    [0.75, 0.4194],
    [0.9, 0.4785],
    [0.97, 0.6982],
    [0.99, 0.8321],
  ])("tw(%s) ≈ %s", (c, expected) => {
    expect(timewiseComplete(c)).toBeCloseTo(expected, 4);
  });
});

describe("baselineDuration", () => {
  const entry = (state: string, started: string, completed: string) => ({ state, startedTime: started, completionTime: completed });
  it("is 1h with fewer than 3 entries", () => {
    expect(baselineDuration([entry("Partial", "2024-01-01T00:00:00Z", ""), entry("Completed", "2023-01-01T00:00:00Z", "2023-01-01T03:00:00Z")])).toBe(HOUR);
  });
  it("takes the first Completed entry between the current update and the installation", () => {
    const history = [
      entry("Partial", "2024-01-01T00:00:00Z", ""),
      entry("Partial", "2023-12-01T00:00:00Z", "2023-12-01T05:00:00Z"),
      entry("Completed", "2023-11-01T00:00:00Z", "2023-11-01T01:12:22Z"),
      entry("Completed", "2023-10-01T00:00:00Z", "2023-10-01T00:30:00Z"),
    ];
    expect(baselineDuration(history)).toBe(HOUR + m(12) + 22n * SECOND);
  });
  it("ignores the oldest entry (the installation)", () => {
    const history = [
      entry("Partial", "2024-01-01T00:00:00Z", ""),
      entry("Partial", "2023-12-01T00:00:00Z", ""),
      entry("Completed", "2023-10-01T00:00:00Z", "2023-10-01T00:30:00Z"),
    ];
    expect(baselineDuration(history)).toBe(HOUR);
  });
});
