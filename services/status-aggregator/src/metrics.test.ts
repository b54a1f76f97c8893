import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import type { PoolSummary } from "@lockstep/insights";
import { PoolProgress, poolMetrics } from "./metrics.js";

describe("PoolProgress", () => {
  it("moves only when the pool's updated count changes", () => {
    const p = new PoolProgress();
    expect(p.at("worker", 3, 1_000)).toBe(1_000);
    expect(p.at("worker", 3, 5_000)).toBe(1_000);
    expect(p.at("worker", 0, 6_000)).toBe(6_000); // an update started: every node is behind
    expect(p.at("worker", 0, 9_000)).toBe(6_000);
    expect(p.at("worker", 1, 9_500)).toBe(9_500);
    expect(p.at("infra", 0, 9_600)).toBe(9_600);
  });
});

describe("poolMetrics", () => {
  it("reads the pools of the view at scrape time, with their progress", async () => {
    const registry = new Registry();
    const summaries: Record<string, Pick<PoolSummary, "paused" | "counters">> = {
      master: { paused: false, counters: { total: 3, updated: 3, degraded: 0 } as PoolSummary["counters"] },
      worker: { paused: true, counters: { total: 4, updated: 1, degraded: 1 } as PoolSummary["counters"] },
    };
    let now = 10_000;
    poolMetrics(registry, { poolNames: () => Object.keys(summaries), poolSummary: (n) => summaries[n] as PoolSummary }, () => now);
    const value = async (name: string, pool: string) =>
      (await registry.getSingleMetric(name)!.get()).values.find((v) => v.labels.pool === pool)?.value;
    expect(await value("lockstep_status_pool_nodes", "worker")).toBe(4);
    expect(await value("lockstep_status_pool_updated_nodes", "worker")).toBe(1);
    expect(await value("lockstep_status_pool_degraded_nodes", "worker")).toBe(1);
    expect(await value("lockstep_status_pool_paused", "worker")).toBe(1);
    expect(await value("lockstep_status_pool_paused", "master")).toBe(0);
    expect(await value("lockstep_status_pool_last_progress_timestamp_seconds", "worker")).toBe(10);
    now = 70_000;
    expect(await value("lockstep_status_pool_last_progress_timestamp_seconds", "worker")).toBe(10);
    summaries.worker!.counters.updated = 2;
    expect(await value("lockstep_status_pool_last_progress_timestamp_seconds", "worker")).toBe(70);
    delete summaries.master;
    expect(await value("lockstep_status_pool_nodes", "master")).toBeUndefined();
  });
});
