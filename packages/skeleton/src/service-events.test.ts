// factObserver: which published facts become Events on this replica's recorder.
import { Events, OperationType } from "@lockstep/contracts";
import type { EventNote } from "@lockstep/kube";
import { describe, expect, it } from "vitest";
import { factObserver } from "./service-events.js";

const lease = { node: "worker-1", holder: "admin", operation: OperationType.OPERATION_TYPE_MAINTENANCE, reason: "kernel patch" };

describe("factObserver", () => {
  it("records every published fact's Events, unless `accept` leaves the fact out", () => {
    const recorded: EventNote[] = [];
    const sink = { record: (n: EventNote) => void recorded.push(n) };
    let leading = false;
    const observe = factObserver(sink, (type) => type !== Events.leaseExpired || leading)!;
    observe(Events.leaseGranted, { lease });
    observe(Events.leaseExpired, { lease });
    expect(recorded.map((n) => n.reason)).toEqual(["LeaseGranted"]);
    leading = true;
    observe(Events.leaseExpired, { lease });
    expect(recorded.map((n) => n.reason)).toEqual(["LeaseGranted", "LeaseExpired"]);
  });

  it("is nothing without a sink", () => {
    expect(factObserver(undefined)).toBeUndefined();
  });
});
