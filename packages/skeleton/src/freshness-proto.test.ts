import { freshnessOf } from "@lockstep/runtime";
import { describe, expect, it } from "vitest";
import { freshnessToProto } from "./freshness-proto.js";

describe("freshnessToProto", () => {
  it.each([
    { ageMs: 1_234, heard: true, want: { ageSeconds: 1.2, stale: false, maxAgeSeconds: 15, heard: true } },
    { ageMs: 41_060, heard: true, want: { ageSeconds: 41.1, stale: true, maxAgeSeconds: 15, heard: true } },
    { ageMs: 16_000, heard: false, want: { ageSeconds: 16, stale: true, maxAgeSeconds: 15, heard: false } },
  ])("age $ageMs ms, heard $heard", ({ ageMs, heard, want }) => {
    expect(freshnessToProto(freshnessOf({ ageMs, heard }, 15_000))).toEqual(want);
  });
});
