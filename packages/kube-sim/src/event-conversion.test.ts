import { describe, expect, it } from "vitest";
import { coreEventFields, coreToEventsV1, eventsV1Fields, eventsV1ToCore } from "./event-conversion.js";

const v1 = {
  apiVersion: "events.k8s.io/v1",
  kind: "Event",
  metadata: { name: "worker-0.1", namespace: "default" },
  eventTime: "2026-01-01T00:00:00.000000Z",
  series: { count: 3, lastObservedTime: "2026-01-01T00:01:00.000000Z" },
  reportingController: "lockstep.io/lease-coordinator",
  reportingInstance: "lease-coordinator-0",
  action: "Refuse",
  reason: "UpdateRefused",
  regarding: { apiVersion: "v1", kind: "Node", name: "worker-0", uid: "u-1" },
  related: { kind: "Lease", name: "worker-0" },
  note: "refused",
  type: "Warning",
  deprecatedSource: { component: "old", host: "h" },
  deprecatedCount: 2,
  deprecatedFirstTimestamp: "2026-01-01T00:00:00Z",
  deprecatedLastTimestamp: "2026-01-01T00:01:00Z",
};

describe("Event conversion", () => {
  it("maps events.k8s.io/v1 onto core/v1 names as upstream's conversion does", () => {
    const core = eventsV1ToCore(v1);
    expect(core).toEqual({
      apiVersion: "v1",
      kind: "Event",
      metadata: v1.metadata,
      eventTime: v1.eventTime,
      series: v1.series,
      reportingComponent: "lockstep.io/lease-coordinator",
      reportingInstance: "lease-coordinator-0",
      action: "Refuse",
      reason: "UpdateRefused",
      involvedObject: v1.regarding,
      related: v1.related,
      message: "refused",
      type: "Warning",
      source: { component: "old", host: "h" },
      count: 2,
      firstTimestamp: "2026-01-01T00:00:00Z",
      lastTimestamp: "2026-01-01T00:01:00Z",
    });
  });

  it("round-trips both ways", () => {
    expect(coreToEventsV1(eventsV1ToCore(v1))).toEqual(v1);
  });

  it("drops the other version's names instead of storing them", () => {
    expect(eventsV1ToCore({ ...v1, message: "stray" }).message).toBe("refused");
    expect(coreToEventsV1({ apiVersion: "v1", kind: "Event", note: "stray", message: "m" }).note).toBe("m");
  });

  it("selects events.k8s.io fields on the stored core form", () => {
    const core = eventsV1ToCore(v1);
    expect(eventsV1Fields["regarding.name"]!(core)).toBe("worker-0");
    expect(eventsV1Fields.reportingController!(core)).toBe("lockstep.io/lease-coordinator");
    expect(eventsV1Fields.source!(core)).toBe("old");
    // No source (a new-style Event): `source` selects the reporting controller, as upstream.
    const { deprecatedSource: _, ...withoutSource } = v1 as Record<string, unknown>;
    expect(coreEventFields.source!(eventsV1ToCore(withoutSource))).toBe("lockstep.io/lease-coordinator");
  });
});
