import { DEFAULT_TIMING, type KubeObject } from "@lockstep/cluster-sim";
import { describe, expect, it } from "vitest";
import { defaultNodeSeconds, poolPace, timingForPace } from "./history.js";

const node = (name: string, readyAt: string): KubeObject => ({ apiVersion: "v1", kind: "Node", metadata: { name }, status: { conditions: [{ type: "Ready", status: "True", lastTransitionTime: readyAt }] } });
const since = Date.parse("2026-01-01T10:00:00Z");

describe("poolPace", () => {
  it("is the median gap between the nodes' returns, times the pool's concurrency", () => {
    const nodes = [node("a", "2026-01-01T10:10:00Z"), node("b", "2026-01-01T10:20:00Z"), node("c", "2026-01-01T10:32:00Z"), node("d", "2026-01-01T10:40:00Z")];
    expect(poolPace(nodes, since, 1)).toEqual({ nodeSeconds: 600, source: "history", samples: 4 });
    expect(poolPace(nodes, since, 2).nodeSeconds).toBe(1200);
  });

  it("needs three nodes back since the update started, else the simulator's defaults stand", () => {
    const nodes = [node("a", "2026-01-01T09:10:00Z"), node("b", "2026-01-01T10:20:00Z"), node("c", "2026-01-01T10:32:00Z")];
    expect(poolPace(nodes, since, 1)).toEqual({ source: "simulator", samples: 2 });
    expect(poolPace(nodes, undefined, 1)).toEqual({ source: "simulator", samples: 0 });
  });
});

describe("timingForPace", () => {
  it("stretches the boot stage so a node's mean update takes the observed time", () => {
    const t = timingForPace(DEFAULT_TIMING, { nodeSeconds: 600, source: "history", samples: 5 });
    expect(defaultNodeSeconds(t)).toBeCloseTo(600, 6);
    expect(t.mcdStart).toEqual(DEFAULT_TIMING.mcdStart);
  });
  it("leaves the defaults without history", () => {
    expect(timingForPace(DEFAULT_TIMING, { source: "simulator", samples: 0 })).toBe(DEFAULT_TIMING);
  });
});
