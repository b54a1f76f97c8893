// The randomised lease model (model.ts) over a few thousand seeds: several replicas on one CAS store,
// requesters that acquire (with force and waiting), renew, release and watch, with injected 409s,
// replica restarts, requester crashes, expiry and clock skew. The invariant is checked at every step
// against what requesters believe: at no instant do two requesters each believe they hold one node
// (so never two unexpired, un-preempted grants), and no budget is exceeded. Seeds are printed on
// failure; scripts/lease-soak.ts runs the same model over 100,000 seeds (SOAK_TRACE=1 replays one).
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

  it("never two believing holders and never a budget exceeded over 1,500 seeds with force, preemption, expiry, renew races, 409s, restarts and clock skew", () => {
    const total = runSeeds(7, 1500, faultyWorldOptions());
    expect(total.violations.slice(0, 3)).toEqual([]);
    // The run exercised the interesting paths, not only denials.
    expect(total.grants).toBeGreaterThan(6000);
    expect(total.conflicts).toBeGreaterThan(1000);
    expect(total.denials).toBeGreaterThan(15000);
    expect(total.preemptions).toBeGreaterThan(150);
    expect(total.preemptorGrants).toBeGreaterThan(15);
    expect(total.renewsPreempted).toBeGreaterThan(40);
    expect(total.learnedByWatch).toBeGreaterThan(4);
    expect(total.expiries).toBeGreaterThan(2000);
    expect(total.replicaRestarts).toBeGreaterThan(2500);
  });

  it("with one wait queue shared by every replica (and kept over their restarts) still never two believing holders nor a budget exceeded (400 seeds)", () => {
    const total = runSeeds(90_000, 400, faultyWorldOptions({ sharedQueue: true }));
    expect(total.violations.slice(0, 3)).toEqual([]);
    expect(total.grants).toBeGreaterThan(3000);
    expect(total.replicaRestarts).toBeGreaterThan(1500);
  });

  it("a forced request never yields two believing holders even when most acquires force (400 seeds)", () => {
    const total = runSeeds(50_000, 400, faultyWorldOptions({ forceRate: 0.6 }));
    expect(total.violations.slice(0, 3)).toEqual([]);
    expect(total.preemptions).toBeGreaterThan(100);
  });
});
