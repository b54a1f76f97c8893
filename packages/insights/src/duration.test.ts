import { describe, expect, it } from "vitest";
import { goDurationString, parseGoDuration, roundDuration, shortDuration, truncateDuration } from "./duration.js";
import { HOUR, MILLISECOND, MINUTE, SECOND } from "./time.js";

describe("goDurationString (Go Duration.String)", () => {
  it.each([
    [0n, "0s"],
    [999n, "999ns"],
    [368_975n, "368.975\u00b5s"],
    [1_500_000n, "1.5ms"],
    [45n * SECOND + 368_975n, "45.000368975s"],
    [14n * MINUTE + 4n * SECOND, "14m4s"],
    [2n * HOUR, "2h0m0s"],
    [HOUR + 10n * SECOND, "1h0m10s"],
    [HOUR + 58n * MINUTE + 50n * SECOND + 368_975n, "1h58m50.000368975s"],
    [-34n * MINUTE, "-34m0s"],
    [-1500n * MILLISECOND, "-1.5s"],
  ])("%s ns → %s", (d, text) => {
    expect(goDurationString(d)).toBe(text);
  });
});

describe("shortDuration", () => {
  it.each([
    // Vectors of openshift/oc health_test.go.
    [HOUR + 10n * SECOND, "1h0m10s"],
    [10n * HOUR + 10n * MINUTE, "10h10m"],
    [10n * MINUTE, "10m"],
    [0n, "now"],
    [45n * SECOND + 368_975n, "45s"],
    [2n * MINUTE + 368_975n, "2m"],
    // Spec §10.
    [2n * HOUR, "2h"],
    [HOUR + 59n * MINUTE, "1h59m"],
    [-34n * MINUTE, "-34m"],
    [MINUTE + 29n * SECOND + 368_975n, "1m29s"],
    [500n * MILLISECOND, "500ms"],
  ])("%s ns → %s", (d, text) => {
    expect(shortDuration(d)).toBe(text);
  });

  it("re-reads sub-second digits as seconds (upstream quirk, the 6m8s of 4.15.0-ec2-early)", () => {
    expect(shortDuration(368_975n)).toBe("6m8s");
    expect(shortDuration(1_500_000n)).toBe("1s");
  });
});

describe("roundDuration / truncateDuration", () => {
  it("rounds halves away from zero", () => {
    expect(roundDuration(30n * SECOND, MINUTE)).toBe(MINUTE);
    expect(roundDuration(-30n * SECOND, MINUTE)).toBe(-MINUTE);
    expect(roundDuration(29n * SECOND, MINUTE)).toBe(0n);
    expect(roundDuration(SECOND + 500n * MILLISECOND, SECOND)).toBe(2n * SECOND);
    expect(roundDuration(14n * MINUTE + 4n * SECOND + 368_975n, MINUTE)).toBe(14n * MINUTE);
  });

  it("truncates toward zero", () => {
    expect(truncateDuration(119n * SECOND, MINUTE)).toBe(MINUTE);
    expect(truncateDuration(-119n * SECOND, MINUTE)).toBe(-MINUTE);
    expect(truncateDuration(HOUR + 19n * MINUTE + 44n * SECOND, MINUTE)).toBe(HOUR + 19n * MINUTE);
  });
});

describe("parseGoDuration", () => {
  it("parses h/m/s texts and rejects others", () => {
    expect(parseGoDuration("1h2m3s")).toBe(HOUR + 2n * MINUTE + 3n * SECOND);
    expect(parseGoDuration("-368s")).toBe(-368n * SECOND);
    expect(parseGoDuration("0s")).toBe(0n);
    expect(parseGoDuration("1.5s")).toBeUndefined();
    expect(parseGoDuration("")).toBeUndefined();
  });
});
