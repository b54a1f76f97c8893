import { describe, expect, it } from "vitest";
import { KubeError } from "./errors.js";
import { fromSelectorObject, matchesFields, matchesLabels, parseFieldSelector, parseLabelSelector } from "./selectors.js";

describe("label selectors", () => {
  const labels = { app: "web", tier: "front", "example.com/x": "1" };
  const cases: Array<[string, boolean]> = [
    ["", true],
    ["app=web", true],
    ["app==web", true],
    ["app!=web", false],
    ["missing!=x", true],
    ["app in (web,db)", true],
    ["app in (db)", false],
    ["app notin (db)", true],
    ["missing notin (db)", true],
    ["tier", true],
    ["!tier", false],
    ["!missing", true],
    ["app=web,tier=back", false],
    ["example.com/x=1, app in ( web )", true],
  ];
  it.each(cases)("%s → %s", (sel, want) => {
    expect(matchesLabels(parseLabelSelector(sel), labels)).toBe(want);
  });

  it("rejects malformed selectors with 400 BadRequest", () => {
    for (const bad of ["a b", "app in web", "a=(", "=x"]) {
      try {
        parseLabelSelector(bad);
        expect.unreachable(`accepted ${bad}`);
      } catch (e) {
        expect(e).toBeInstanceOf(KubeError);
        expect((e as KubeError).status.code).toBe(400);
        expect((e as KubeError).status.reason).toBe("BadRequest");
      }
    }
  });

  it("converts metav1.LabelSelector objects", () => {
    const sel = fromSelectorObject({ matchLabels: { app: "web" }, matchExpressions: [{ key: "tier", operator: "NotIn", values: ["back"] }] })!;
    expect(matchesLabels(sel, labels)).toBe(true);
    expect(matchesLabels(sel, { app: "web", tier: "back" })).toBe(false);
    expect(fromSelectorObject(undefined)).toBeUndefined();
  });
});

describe("field selectors", () => {
  const fields = { "spec.nodeName": (o: any) => o.spec?.nodeName ?? "" };
  const pod = { metadata: { name: "p1", namespace: "ns1" }, spec: { nodeName: "n1" } };
  it("matches common and type fields with = == !=", () => {
    expect(matchesFields(parseFieldSelector("metadata.name=p1", fields), pod)).toBe(true);
    expect(matchesFields(parseFieldSelector("metadata.namespace==ns2", fields), pod)).toBe(false);
    expect(matchesFields(parseFieldSelector("spec.nodeName!=n2,metadata.name=p1", fields), pod)).toBe(true);
    expect(matchesFields(parseFieldSelector("spec.nodeName=", fields), { metadata: {} })).toBe(true);
  });
  it("rejects unknown fields with the upstream message", () => {
    try {
      parseFieldSelector("spec.foo=x", fields);
      expect.unreachable();
    } catch (e) {
      expect((e as KubeError).status).toEqual({
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: "field label not supported: spec.foo",
        reason: "BadRequest",
        code: 400,
      });
    }
  });
});
