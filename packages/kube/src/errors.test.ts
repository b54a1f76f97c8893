// Error classification for both error classes a caller may meet: client-node's ApiException (from
// typed clients in tests and tools) and KubeApiError (from KubeHttp).
import { ApiException } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { isAlreadyExists, isConflict, isGone, isNotFound, KubeApiError, statusCode, statusReason } from "./errors.js";

const status = (code: number, reason: string) => JSON.stringify({ kind: "Status", code, reason });

describe("API error classification", () => {
  it.each([
    ["KubeApiError", (code: number, body: string) => new KubeApiError(code, body, "GET /x")],
    ["ApiException", (code: number, body: string) => new ApiException(code, "msg", body, {})],
  ])("reads code and reason of a %s", (_n, make) => {
    expect(statusCode(make(404, status(404, "NotFound")))).toBe(404);
    expect(isNotFound(make(404, status(404, "NotFound")))).toBe(true);
    expect(isConflict(make(409, status(409, "Conflict")))).toBe(true);
    expect(isAlreadyExists(make(409, status(409, "Conflict")))).toBe(false);
    expect(isAlreadyExists(make(409, status(409, "AlreadyExists")))).toBe(true);
    expect(isGone(make(410, status(410, "Expired")))).toBe(true);
    expect(statusReason(make(500, "not json"))).toBeUndefined();
  });

  it("reads a watch error's statusCode and nothing from plain errors", () => {
    expect(statusCode(Object.assign(new Error("watch"), { statusCode: 410 }))).toBe(410);
    expect(statusCode(new Error("ECONNRESET"))).toBeUndefined();
    expect(statusReason(new Error("x"))).toBeUndefined();
  });

  it("says the reason in a KubeApiError's message", () => {
    expect(new KubeApiError(409, status(409, "AlreadyExists"), "POST /apis/x").message).toBe("POST /apis/x: HTTP 409 (AlreadyExists)");
  });
});
