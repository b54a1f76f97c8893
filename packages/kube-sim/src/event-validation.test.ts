import { describe, expect, it } from "vitest";
import { eventNamespaceErrors } from "./event-validation.js";

const event = (namespace: string, involvedNamespace?: string, eventTime?: string) => ({
  apiVersion: "v1",
  kind: "Event",
  metadata: { name: "e", namespace },
  involvedObject: { kind: involvedNamespace ? "Pod" : "Node", name: "n", ...(involvedNamespace ? { namespace: involvedNamespace } : {}) },
  ...(eventTime ? { eventTime } : {}),
});
const NOW = "2026-11-27T10:00:00.000000Z";

describe("eventNamespaceErrors", () => {
  it("puts an Event about a cluster-scoped object in default, or kube-system when it is new-style", () => {
    expect(eventNamespaceErrors(event("default"))).toEqual([]);
    expect(eventNamespaceErrors(event("default", undefined, NOW))).toEqual([]);
    expect(eventNamespaceErrors(event("kube-system", undefined, NOW))).toEqual([]);
    expect(eventNamespaceErrors(event("kube-system"))).toHaveLength(1);
    const [err] = eventNamespaceErrors(event("lockstep-system", undefined, NOW));
    expect(err).toMatchObject({ field: "involvedObject.namespace", reason: "FieldValueInvalid" });
    expect(err!.detail).toBe(`Invalid value: "": does not match event.namespace`);
  });

  it("puts an old-style Event about a namespaced object in that object's namespace; a new-style one anywhere", () => {
    expect(eventNamespaceErrors(event("apps", "apps"))).toEqual([]);
    expect(eventNamespaceErrors(event("default", "apps"))).toHaveLength(1);
    expect(eventNamespaceErrors(event("default", "apps", NOW))).toEqual([]);
  });
});
