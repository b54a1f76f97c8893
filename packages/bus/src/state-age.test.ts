import { describe, expect, it } from "vitest";
import { stateAge } from "./state-age.js";

describe("stateAge", () => {
  it.each([
    { case: "no heartbeat yet: counts from the start", last: undefined, start: 1_000, now: 4_500, want: { ageMs: 3_500, heard: false } },
    { case: "heard: counts from the last receipt", last: 10_000, start: 1_000, now: 12_000, want: { ageMs: 2_000, heard: true } },
    { case: "received just now", last: 12_000, start: 1_000, now: 12_000, want: { ageMs: 0, heard: true } },
    { case: "never negative (clock read before the receipt)", last: 12_001, start: 1_000, now: 12_000, want: { ageMs: 0, heard: true } },
    { case: "never negative before the start", last: undefined, start: 5_000, now: 4_000, want: { ageMs: 0, heard: false } },
  ])("$case", ({ last, start, now, want }) => {
    expect(stateAge(last, start, now)).toEqual(want);
  });
});
