import { describe, expect, it } from "vitest";
import { celValue, compileError, evaluateMatchConditions } from "./match-conditions.js";

const POWERS_OFF = { name: "powers-off", expression: "has(object.spec.online) && object.spec.online == false" };
const host = (online?: boolean) => ({ metadata: { name: "h" }, spec: online === undefined ? {} : { online } });
const vars = (object: unknown, oldObject: unknown = null) => ({ object, oldObject, request: { operation: "UPDATE" } });

describe("evaluateMatchConditions", () => {
  it("calls the webhook when every condition is true and skips it when one is false", () => {
    expect(evaluateMatchConditions([POWERS_OFF], vars(host(false)), "Fail")).toEqual({ call: true });
    expect(evaluateMatchConditions([POWERS_OFF], vars(host(true)), "Fail")).toEqual({ call: false });
    expect(evaluateMatchConditions([POWERS_OFF], vars(host()), "Fail")).toEqual({ call: false });
    expect(evaluateMatchConditions([], vars(null), "Fail")).toEqual({ call: true });
  });

  it("on an evaluation error refuses under Fail and skips under Ignore; a false condition wins over an error", () => {
    const broken = { name: "no-object", expression: "object.spec.online == false" };
    expect(evaluateMatchConditions([broken], vars(null), "Fail")).toEqual({ error: expect.stringMatching(/^expression 'no-object' resulted in error: /) });
    expect(evaluateMatchConditions([broken], vars(null), "Ignore")).toEqual({ call: false });
    expect(evaluateMatchConditions([broken, { name: "f", expression: "false" }], vars(null), "Fail")).toEqual({ call: false });
  });

  it("treats a non-boolean result as an error", () => {
    expect(evaluateMatchConditions([{ name: "text", expression: "'yes'" }], vars(null), "Fail")).toEqual({ error: "expression 'text' resulted in error: must evaluate to bool, got string" });
  });

  it("sees whole JSON numbers as int and reads the request", () => {
    expect(evaluateMatchConditions([{ name: "n", expression: "object.spec.replicas > 2 && request.operation == 'UPDATE'" }], vars({ spec: { replicas: 3 } }), "Fail")).toEqual({ call: true });
    expect(celValue({ a: [1, 1.5, "x", null] })).toEqual(new Map([["a", [1n, 1.5, "x", null]]]));
  });
});

describe("compileError", () => {
  it("names what does not parse, and nothing for what does", () => {
    expect(compileError(POWERS_OFF.expression)).toBeUndefined();
    expect(compileError("object.(")).toMatch(/expecting/);
  });
});
