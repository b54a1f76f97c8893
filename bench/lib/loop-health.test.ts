import { describe, expect, it } from "vitest";
import { loopWindow, parseLoopSample } from "./loop-health.js";

const TEXT = `# HELP nodejs_eventloop_lag_p99_seconds The 99th percentile of the recorded event loop delays.
# TYPE nodejs_eventloop_lag_p99_seconds gauge
nodejs_eventloop_lag_p99_seconds 0.012
nodejs_eventloop_lag_max_seconds 0.0456
nodejs_gc_duration_seconds_sum{kind="minor"} 0.5
nodejs_gc_duration_seconds_count{kind="minor"} 40
nodejs_gc_duration_seconds_sum{kind="major"} 0.25
nodejs_gc_duration_seconds_count{kind="major"} 2
nodejs_gc_duration_seconds_bucket{le="0.001",kind="minor"} 10
`;

describe("loop health", () => {
  it("reads the event-loop delay and sums GC over every kind", () => {
    const s = parseLoopSample(TEXT);
    expect(s.lagP99Ms).toBeCloseTo(12);
    expect(s.lagMaxMs).toBeCloseTo(45.6);
    expect(s.gcSeconds).toBeCloseTo(0.75);
    expect(s.gcCount).toBe(42);
  });

  it("gives a window's GC as the difference and its delay as the end's", () => {
    const a = parseLoopSample(TEXT);
    const b = { ...a, lagP99Ms: 30, gcSeconds: 1.75, gcCount: 50 };
    expect(loopWindow(a, b)).toEqual({ lagP99Ms: 30, lagMaxMs: a.lagMaxMs, gcSeconds: 1, gcCount: 8 });
  });

  it("says NaN when a process exports no event-loop figures", () => {
    expect(parseLoopSample("up 1\n").lagP99Ms).toBeNaN();
  });
});
