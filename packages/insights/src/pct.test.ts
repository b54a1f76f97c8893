import { describe, expect, it } from "vitest";
import { pct } from "./pct.js";

describe("pct (Go %.0f)", () => {
  it.each([
    [12.5, "12"],
    [37.5, "38"],
    [0.5, "0"],
    [1.5, "2"],
    [(4 / 33) * 100, "12"],
    [(32 / 33) * 100, "97"],
    [(22 / 59) * 100, "37"],
    [100, "100"],
    [0, "0"],
    [2.4999, "2"],
  ])("%s → %s", (x, text) => {
    expect(pct(x)).toBe(text);
  });
});
