import { describe, expect, it } from "vitest";
import { Faults, parseDuration, parseFaultSpec } from "./faults.js";

describe("fault specs", () => {
  it("parses every form", () => {
    expect(parseFaultSpec("error=500:0.05:verb=update:resource=nodes")).toEqual({ errors: [{ code: 500, probability: 0.05, verb: "update", resource: "nodes" }] });
    expect(parseFaultSpec("latency=20ms:jitter=1s")).toEqual({ latencyMs: 20, latencyJitterMs: 1000 });
    expect(parseFaultSpec("drop-watches=10s")).toEqual({ dropWatchesEveryMs: 10_000 });
    expect(parseFaultSpec("gone-next-watch")).toEqual({ goneNextWatch: 1, goneMode: "event" });
    expect(parseFaultSpec("gone-next-watch=2:mode=http")).toEqual({ goneNextWatch: 2, goneMode: "http" });
    expect(parseFaultSpec("outage=5s:mode=refuse")).toEqual({ outage: { durationMs: 5000, mode: "refuse" } });
    expect(parseFaultSpec("seed=7")).toEqual({ seed: 7 });
    expect(parseDuration("1.5s")).toBe(1500);
  });
  it("rejects bad specs with a clear message", () => {
    expect(() => parseFaultSpec("error=418")).toThrow(/409, 429, 500 or 503/);
    expect(() => parseFaultSpec("error=500:2")).toThrow(/probability/);
    expect(() => parseFaultSpec("boom")).toThrow(/unknown fault/);
    expect(() => parseFaultSpec("latency=fast")).toThrow(/invalid duration/);
  });
});

describe("Faults", () => {
  const nodes = { group: "", plural: "nodes", kind: "Node" };
  it("is reproducible for a seed and filters by verb and resource", () => {
    const draw = (seed: number) => {
      const f = new Faults({ seed, errors: [{ code: 500, probability: 0.3, verb: "update", resource: "nodes" }] });
      return Array.from({ length: 50 }, () => f.errorFor({ verb: "update", resource: nodes, name: "n1" })?.code ?? 0);
    };
    expect(draw(3)).toEqual(draw(3));
    expect(draw(3)).not.toEqual(draw(4));
    expect(draw(3).filter((c) => c === 500).length).toBeGreaterThan(0);
    const f = new Faults({ errors: [{ code: 409, probability: 1, verb: "update", resource: "nodes" }] });
    expect(f.errorFor({ verb: "get", resource: nodes })).toBeUndefined();
    expect(f.errorFor({ verb: "update", resource: { ...nodes, plural: "pods" } })).toBeUndefined();
    expect(f.errorFor({ verb: "update", resource: nodes, subresource: "status" })).toBeUndefined();
    expect(f.errorFor({ verb: "update", resource: nodes, name: "n1" })?.status).toMatchObject({ code: 409, reason: "Conflict" });
  });
  it("counts down forced 410s", () => {
    const f = new Faults({ goneNextWatch: 2, goneMode: "http" });
    expect([f.takeGone(), f.takeGone(), f.takeGone()]).toEqual(["http", "http", undefined]);
  });
});
