import { describe, expect, it } from "vitest";
import { objectField, parseProviderSpec, stringField } from "./provider-spec.js";

describe("parseProviderSpec", () => {
  it.each([
    { json: "", message: "providerSpec is empty" },
    { json: "{", message: /^providerSpec is not valid JSON: / },
    { json: "[1]", message: "providerSpec must be a JSON object" },
    { json: "null", message: "providerSpec must be a JSON object" },
    { json: '"s"', message: "providerSpec must be a JSON object" },
  ])("rejects $json", ({ json, message }) => {
    const r = parseProviderSpec(json);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toMatch(message);
  });
  it("accepts an object", () => {
    expect(parseProviderSpec('{"kind":"X","a":{"b":1}}')).toEqual({ ok: true, spec: { kind: "X", a: { b: 1 } } });
  });
});

describe("field readers", () => {
  const o = { a: { b: 1 }, s: "x", n: 3 };
  it("objectField", () => {
    expect(objectField(o, "a", "a")).toEqual({ b: 1 });
    expect(objectField(o, "missing", "missing")).toBeUndefined();
    expect(objectField(o, "s", "s")).toEqual({ error: "providerSpec s must be an object" });
  });
  it("stringField", () => {
    expect(stringField(o, "s", "s")).toBe("x");
    expect(stringField(o, "missing", "missing")).toBe("");
    expect(stringField(o, "n", "n")).toEqual({ error: "providerSpec n must be a string" });
  });
});
