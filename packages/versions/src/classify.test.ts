import { describe, expect, it } from "vitest";
import { classifyUpdate } from "./classify.js";

describe("classifyUpdate", () => {
  it.each([
    ["4.15.3", "4.15.3", "Same", true, false],
    ["4.15.3", "4.15.3+meta", "Same", true, false],
    ["4.15.3", "4.15.9", "ZStream", true, false],
    ["4.16.0-rc.1", "4.16.0", "ZStream", true, false],
    ["4.16.0-ec.3", "4.16.0-rc.1", "ZStream", true, false],
    ["4.15.3", "4.16.0", "Minor", false, true],
    ["4.15.3", "4.16.0-rc.1", "Minor", false, true],
    ["4.14.9", "4.16.2", "Minor", false, true],
    ["4.22.1", "5.0.0", "Major", false, true],
    ["4.15.9", "4.15.3", "Downgrade", true, false],
    ["4.16.1", "4.15.9", "Downgrade", false, false],
    ["4.16.0", "4.16.0-rc.1", "Downgrade", true, false],
  ])("%s → %s is %s", (current, target, kind, sameMinor, blockable) => {
    expect(classifyUpdate(current, target)).toEqual({ kind, sameMinor, blockable });
  });

  it("throws a parse error for a bad target", () => {
    expect(() => classifyUpdate("4.15.3", "4.16")).toThrow(/invalid OCP version "4.16"/);
  });
});
