import { describe, expect, it } from "vitest";
import { classify } from "./disruption.js";
import { admissionResponse, parseAdmissionReview } from "./review.js";

const review = (request: Record<string, unknown>) => ({ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", request: { uid: "u1", userInfo: { username: "alice" }, ...request } });

describe("parseAdmissionReview", () => {
  it("reads the request's fields", () => {
    const r = parseAdmissionReview(review({ operation: "UPDATE", resource: { group: "", version: "v1", resource: "nodes" }, name: "w1", userInfo: { username: "alice", groups: ["g", 7] } }));
    expect(r).toMatchObject({ ok: true, request: { uid: "u1", group: "", resource: "nodes", name: "w1", operation: "UPDATE", userInfo: { username: "alice", groups: ["g"] }, dryRun: false } });
  });

  it("names the object of a deletecollection review (no request.name) after the deleted object, so it is judged like a single deletion", () => {
    const r = parseAdmissionReview(review({ operation: "DELETE", resource: { group: "", version: "v1", resource: "nodes" }, name: "", oldObject: { metadata: { name: "w2" } } }));
    expect(r.ok && r.request.name).toBe("w2");
    expect(r.ok && classify(r.request)).toMatchObject({ kind: "node", node: "w2", operation: "Deprovision" });
  });

  it("refuses what is not an admission.k8s.io/v1 AdmissionReview with a request", () => {
    expect(parseAdmissionReview(null)).toEqual({ ok: false, error: "the body is not a JSON object" });
    expect(parseAdmissionReview({ apiVersion: "admission.k8s.io/v1beta1", kind: "AdmissionReview" })).toMatchObject({ ok: false, error: expect.stringContaining("v1beta1") });
    expect(parseAdmissionReview({ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview" })).toEqual({ ok: false, error: "the AdmissionReview has no request" });
    expect(parseAdmissionReview(review({ operation: "PATCH" }))).toMatchObject({ ok: false, error: expect.stringContaining("PATCH") });
  });
});

describe("admissionResponse", () => {
  it("refuses with a 403 and the message, or allows with the warnings", () => {
    expect(admissionResponse("u1", { allowed: false, message: "no" })).toEqual({ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", response: { uid: "u1", allowed: false, status: { code: 403, reason: "Forbidden", message: "no" } } });
    expect(admissionResponse("u1", { allowed: true, warnings: ["w"] })).toMatchObject({ response: { uid: "u1", allowed: true, warnings: ["w"] } });
  });
});
