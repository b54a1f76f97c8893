import { describe, expect, it } from "vitest";
import { RateMeter } from "./rate-meter.js";

function meterAt(): { meter: RateMeter; at: (ms: number, n?: number) => void } {
  let t = 0;
  const meter = new RateMeter(100, () => t, 0);
  return { meter, at: (ms, n = 1) => ((t = ms), meter.count(n)) };
}

describe("RateMeter", () => {
  it("finds the busiest window inside a phase", () => {
    const { meter, at } = meterAt();
    at(50, 10); // 0-100 ms
    at(1_050, 500); // a burst in 1.0-1.1 s
    at(1_450, 300);
    at(2_950, 10);
    expect(meter.total).toBe(820);
    // Any 1 s window containing both burst buckets: 800 events/s.
    expect(meter.best(1_000, 0, 3_000)).toBe(800);
    // A 500 ms window: the same 800 events in 0.5 s.
    expect(meter.best(500, 0, 3_000)).toBe(1_600);
  });

  it("ignores events outside the phase", () => {
    const { meter, at } = meterAt();
    at(150, 1_000);
    at(2_150, 20);
    expect(meter.best(1_000, 1_000, 4_000)).toBe(20);
  });

  it("gives a short phase's mean rate over its length", () => {
    const { meter, at } = meterAt();
    at(0, 30);
    at(150, 30);
    expect(meter.best(1_000, 0, 300)).toBe(200); // 60 events in 0.3 s
    expect(meter.best(1_000, 500, 500)).toBe(0);
  });
});
