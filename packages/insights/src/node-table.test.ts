import { describe, expect, it } from "vitest";
import { sortNodes, visibleRows } from "./node-table.js";
import { nodeRecord as rec } from "./node-record-fixture.js";

describe("sortNodes (spec §6.1)", () => {
  it("orders by assessment rank, then phase rank, then byte-wise name", () => {
    const sorted = sortNodes([
      rec("b", "Completed", "Updated"),
      rec("a", "Outdated", "Pending"),
      rec("Z", "Progressing", "Updating"),
      rec("a", "Progressing", "Draining"),
      rec("c", "Unavailable", "Updated"),
      rec("c", "Unavailable", "Pending"),
      rec("x", "Degraded", "Updating"),
      rec("y", "Excluded", "Paused"),
      rec("B", "Completed", "Updated"),
    ]);
    expect(sorted.map((n) => `${n.assessment}/${n.phase}/${n.name}`)).toEqual([
      "Degraded/Updating/x",
      "Unavailable/Pending/c",
      "Unavailable/Updated/c",
      "Progressing/Draining/a",
      "Progressing/Updating/Z",
      "Excluded/Paused/y",
      "Outdated/Pending/a",
      "Completed/Updated/B",
      "Completed/Updated/b",
    ]);
  });
});

describe("visibleRows (spec §6.2, §6.3)", () => {
  const many = <T>(n: number, make: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => make(i));

  it("shows everything with full details", () => {
    const rows = many(15, (i) => rec(`n${i}`, "Outdated", "Pending"));
    expect(visibleRows(rows, true)).toMatchObject({ rows: { length: 15 }, omitted: { total: 0 } });
  });

  it("shows 10 rows plus every degraded or unavailable one, and counts the hidden ones", () => {
    const rows = [
      ...many(11, (i) => rec(`d${String(i).padStart(2, "0")}`, "Degraded", "Draining")),
      rec("u", "Unavailable", "Pending"),
      rec("p1", "Progressing", "Draining", { isUnavailable: true }),
      rec("p2", "Progressing", "Updating"),
      rec("x", "Excluded", "Paused"),
      rec("o", "Outdated", "Pending"),
      rec("c", "Completed", "Updated"),
    ];
    const { rows: shown, omitted } = visibleRows(rows, false);
    expect(shown.map((r) => r.name)).toEqual([...many(11, (i) => `d${String(i).padStart(2, "0")}`), "u"]);
    expect(omitted).toEqual({ total: 5, completed: 1, available: 4, progressing: 2, outdated: 4, draining: 1, excluded: 1 });
  });

  it("tops up to 10 rows", () => {
    const rows = [rec("u", "Unavailable", "Pending"), ...many(12, (i) => rec(`o${i}`, "Outdated", "Pending"))];
    const { rows: shown, omitted } = visibleRows(rows, false);
    expect(shown).toHaveLength(10);
    expect(omitted.total).toBe(3);
  });
});
