import { KubeApiError } from "@lockstep/kube";
import { describe, expect, it } from "vitest";
import { apiMessage, errText } from "./errors.js";

describe("errText", () => {
  it("gives an API error's status code and Status message (what kubectl prints), not the request line", () => {
    const err = new KubeApiError(403, JSON.stringify({ kind: "Status", reason: "Forbidden", message: 'admission webhook "w" denied the request: no' }), "PATCH /api/v1/nodes/n1");
    expect(apiMessage(err)).toBe('admission webhook "w" denied the request: no');
    expect(errText(err)).toBe('HTTP 403: admission webhook "w" denied the request: no');
  });

  it("falls back to the first line of any other error", () => {
    expect(errText(new Error("connect ECONNREFUSED\nstack"))).toBe("connect ECONNREFUSED");
    expect(errText(new KubeApiError(500, "not json", "GET /x"))).toBe("GET /x: HTTP 500");
    expect(errText("plain")).toBe("plain");
  });
});
