import { describe, expect, it } from "vitest";
import { isNewerResourceVersion } from "./resource-version.js";

describe("isNewerResourceVersion", () => {
  it.each([
    ["10", "9", true], // numerically, not as strings ("10" < "9")
    ["9", "10", false],
    ["7", "7", false],
    ["18446744073709551617", "18446744073709551616", true], // beyond 2^53: BigInt, not Number
    ["007", "7", false],
    ["abc", "1", false], // not decimal: no claim, so the writer's own value wins
    ["2", "x1", false],
    [undefined, "1", false],
    ["1", undefined, false],
    ["", "1", false],
    ["-2", "-3", false],
  ] as const)("%s newer than %s: %s", (a, b, want) => {
    expect(isNewerResourceVersion(a, b)).toBe(want);
  });
});
