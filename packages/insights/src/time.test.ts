import { describe, expect, it } from "vitest";
import { goQuote } from "./go-quote.js";
import { InvalidTimeError, SECOND, ZERO_TIME, formatRFC3339, parseTime } from "./time.js";

describe("parseTime / formatRFC3339", () => {
  it("parses whole seconds, fractions and offsets", () => {
    expect(parseTime("1970-01-01T00:00:01Z")).toBe(SECOND);
    expect(parseTime("1970-01-01T00:00:01.000368975Z")).toBe(SECOND + 368_975n);
    expect(parseTime("1970-01-01T01:00:01+01:00")).toBe(SECOND);
    expect(parseTime("2024-02-27T15:42:58.5Z") - parseTime("2024-02-27T15:42:58Z")).toBe(SECOND / 2n);
  });
  it("missing times are Go's zero time", () => {
    expect(parseTime(undefined)).toBe(ZERO_TIME);
    expect(parseTime(null)).toBe(ZERO_TIME);
    expect(formatRFC3339(ZERO_TIME)).toBe("0001-01-01T00:00:00Z");
  });
  it("rejects malformed timestamps", () => {
    expect(() => parseTime("yesterday")).toThrow(InvalidTimeError);
  });
  it("formats in UTC with whole seconds", () => {
    expect(formatRFC3339(parseTime("2024-02-27T15:42:58.999Z"))).toBe("2024-02-27T15:42:58Z");
    expect(formatRFC3339(parseTime("2024-02-27T17:42:58+02:00"))).toBe("2024-02-27T15:42:58Z");
  });
});

describe("goQuote (Go %q)", () => {
  it.each([
    ["plain", '"plain"'],
    ['a "b" \\ c', '"a \\"b\\" \\\\ c"'],
    ["l1\nl2\tx\r", '"l1\\nl2\\tx\\r"'],
    ["\u0001", '"\\x01"'],
    ["\u007f", '"\\x7f"'],
    ["caf\u00e9 \u00b5", '"caf\u00e9 \u00b5"'],
    ["\u200b", '"\\u200b"'],
  ])("%j → %s", (s, q) => {
    expect(goQuote(s)).toBe(q);
  });
});
