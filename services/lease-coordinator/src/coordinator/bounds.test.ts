import { describe, expect, it } from "vitest";
import { boundsErrors, LIMITS } from "./bounds.js";

describe("boundsErrors", () => {
  it("accepts fields within their limits", () => {
    expect(boundsErrors({ node: "ip-10-0-1-4", holder: "alice/maint", reason: "replace a DIMM\nticket 42" })).toEqual([]);
    expect(boundsErrors({ reason: "x".repeat(LIMITS.reason) })).toEqual([]);
  });

  it("names every field that is too long, with its length and limit", () => {
    expect(boundsErrors({ reason: "x".repeat(120 * 1024), holder: "h".repeat(513), node: "n" })).toEqual([
      "reason is 122880 characters long; at most 1024 are allowed",
      "holder is 513 characters long; at most 512 are allowed",
    ]);
  });

  it("refuses control characters other than newlines and tabs", () => {
    expect(boundsErrors({ reason: "ok\tfine\n" })).toEqual([]);
    expect(boundsErrors({ holder: "alice\u001b[2J" })).toEqual(["holder contains control characters"]);
  });
});
