import { describe, expect, it } from "vitest";
import { formatDuration, parseDuration } from "./duration.js";

describe("parseDuration", () => {
  it.each([
    ["250ms", 250],
    ["30s", 30_000],
    ["5m", 300_000],
    ["1h30m", 5_400_000],
    ["1.5s", 1500],
    ["2d", 172_800_000],
    ["0", 0],
    [" 10s ", 10_000],
  ])("%s → %d ms", (text, ms) => expect(parseDuration(text)).toBe(ms));

  it.each(["", "30", "-5s", "5 m", "abc", "5x", "s"])("rejects %j", (text) => expect(parseDuration(text)).toBeUndefined());
});

describe("formatDuration", () => {
  it.each([
    [250, "250ms"],
    [1500, "1.5s"],
    [90_000, "1m30s"],
    [3_600_000, "1h"],
  ])("%d ms → %s", (ms, text) => expect(formatDuration(ms)).toBe(text));
});
