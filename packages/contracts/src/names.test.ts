import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeToken, encodeToken } from "./names.js";

const TOKEN = /^[A-Za-z0-9_-]+$/;

describe("name encoding", () => {
  it("round-trips any string into a single safe token", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), (s) => {
        const t = encodeToken(s);
        expect(t).toMatch(TOKEN);
        expect(decodeToken(t)).toBe(s);
      }),
      { numRuns: 2000 },
    );
  });

  it("is injective on Kubernetes-style names", () => {
    const name = fc.stringMatching(/^[a-z0-9]([-a-z0-9.]{0,30}[a-z0-9])?$/);
    fc.assert(
      fc.property(name, name, (a, b) => {
        fc.pre(a !== b);
        expect(encodeToken(a)).not.toBe(encodeToken(b));
      }),
    );
  });

  it("keeps ordinary names readable", () => {
    expect(encodeToken("ip-10-0-1-2.ec2.internal")).toBe("ip-10-0-1-2_2Eec2_2Einternal");
    expect(encodeToken("worker")).toBe("worker");
    expect(encodeToken("")).toBe("_");
  });

  it("rejects malformed tokens", () => {
    expect(() => decodeToken("a_2")).toThrow(/invalid encoded token/);
    expect(() => decodeToken("a.b")).toThrow(/invalid encoded token/);
  });
});
