import { describe, expect, it } from "vitest";
import { adjustCounters, countNodes, summarizeCountedPool, summarizePool, summarizePoolLazily, zeroCounters } from "./pool-summary.js";
import { nodeRecord as rec } from "./node-record-fixture.js";
import type { MachineConfigPool } from "./types.js";

const pool = { metadata: { name: "worker" }, spec: { paused: true } } as unknown as MachineConfigPool;
const records = [rec("c", "Completed", "Updated"), rec("a", "Outdated", "Pending"), rec("b", "Progressing", "Draining"), rec("d", "Degraded", "Updating")];

describe("summarizePoolLazily", () => {
  it("is the same summary as summarizePool, rows sorted the same way", () => {
    const lazy = summarizePoolLazily(pool, records);
    expect(lazy).toEqual(summarizePool(pool, records));
    expect(lazy.nodes.map((n) => n.name)).toEqual(summarizePool(pool, records).nodes.map((n) => n.name));
    expect(lazy.nodes).toBe(lazy.nodes); // sorted once
    expect(records.map((r) => r.name)).toEqual(["c", "a", "b", "d"]); // input untouched
  });

  it("counts an empty pool like summarizePool", () => {
    expect(summarizePoolLazily(pool, [])).toEqual(summarizePool(pool, []));
  });
});

describe("adjustCounters + summarizeCountedPool", () => {
  it("counters kept by adding and removing rows equal counting the rows afresh", () => {
    const c = zeroCounters();
    for (const r of records) adjustCounters(c, r, 1);
    expect(c).toEqual(countNodes(records));
    adjustCounters(c, records[2]!, -1);
    const changed = rec("b", "Completed", "Updated");
    adjustCounters(c, changed, 1);
    const now = [records[0]!, records[1]!, changed, records[3]!];
    expect(c).toEqual(countNodes(now));
    const s = summarizeCountedPool(pool, c, () => now);
    expect(s).toEqual(summarizePool(pool, now));
    adjustCounters(c, records[0]!, -1);
    expect(s.counters).toEqual(countNodes(now)); // the summary holds its own copy
  });
});
