import { describe, expect, it } from "vitest";
import { rfc3339, scaledClock } from "./clock.js";

describe("scaledClock", () => {
  it("reads the wall clock for instants and scales only durations", () => {
    let wall = Date.parse("2026-01-01T00:00:00.700Z");
    const c = scaledClock(60, () => wall);
    expect(c.now().toISOString()).toBe("2026-01-01T00:00:00.700Z");
    wall += 2_000;
    // Two real seconds at 60x are two simulated minutes, but now() is still the wall clock.
    expect(c.now().toISOString()).toBe("2026-01-01T00:00:02.700Z");
    expect(c.virtualMs(2_000)).toBe(120_000);
    expect(c.realMs(120_000)).toBe(2_000);
    expect(c.realMs(-5)).toBe(0);
  });

  it("refuses a time scale that is not a positive number", () => {
    for (const bad of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) expect(() => scaledClock(bad)).toThrow("time scale must be a positive number");
  });

  it("stamps whole seconds, rounded down so a stamp is never after the instant it stands for", () => {
    expect(rfc3339(new Date("2026-01-01T00:00:00.999Z"))).toBe("2026-01-01T00:00:00Z");
  });
});
