// The randomised lease model (model.ts) over a few thousand seeds: several replicas on one CAS store,
// requesters that acquire (with force and waiting), renew, release and watch, with injected 409s,
// replica restarts, requester crashes, expiry and clock skew. The invariant is checked at every step
// against what requesters believe: at no instant do two requesters each believe they hold one node
// (so never two unexpired, un-preempted grants), and no budget is exceeded. Seeds are printed on
// failure; scripts/lease-soak.ts runs the same model over 100,000 seeds.
import { describe, expect, it } from "vitest";
import { addOutcomes, emptyOutcome, faultyWorldOptions, poolRaceOptions, runModel, type ModelOptions, type ModelOutcome } from "./model.js";

function runSeeds(first: number, count: number, o: ModelOptions): ModelOutcome {
  let total = emptyOutcome();
  for (let seed = first; seed < first + count; seed++) total = addOutcomes(total, runModel(seed, o));
  return total;
}

describe("lease model", () => {
  it("scenario 05: pool budget race — budget 1, concurrent requests for different nodes, at most one live grant over 1,000 interleavings", () => {
    const total = runSeeds(1, 1000, poolRaceOptions());
    expect(total.violations.slice(0, 3)).toEqual([]);
    expect(total.grants).toBeGreaterThan(1000);
    expect(total.conflicts).toBeGreaterThan(0);
  });

  it("never two believing holders and never a budget exceeded over 2,000 seeds with force, preemption, expiry, renew races, 409s, restarts and clock skew", () => {
    const total = runSeeds(7, 2000, faultyWorldOptions());
    expect(total.violations.slice(0, 3)).toEqual([]);
    // The run exercised the interesting paths, not only denials.
    expect(total.grants).toBeGreaterThan(8000);
    expect(total.conflicts).toBeGreaterThan(1500);
    expect(total.denials).toBeGreaterThan(20000);
    expect(total.preemptions).toBeGreaterThan(200);
    expect(total.preemptorGrants).toBeGreaterThan(20);
    expect(total.renewsPreempted).toBeGreaterThan(50);
    expect(total.learnedByWatch).toBeGreaterThan(5);
    expect(total.expiries).toBeGreaterThan(2000);
    expect(total.replicaRestarts).toBeGreaterThan(3000);
  });

  it("a forced request never yields two believing holders even when every acquire may force (500 seeds)", () => {
    const total = runSeeds(50_000, 500, faultyWorldOptions({ forceRate: 0.6 }));
    expect(total.violations.slice(0, 3)).toEqual([]);
    expect(total.preemptions).toBeGreaterThan(100);
  });
});
