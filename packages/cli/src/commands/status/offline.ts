// `lockstep status --from-dir DIR --case NAME`: the fixture set evaluated at the fixture "now".
import { type Details, evaluate, fixtureNow, render, wallClockNow } from "@lockstep/insights";
import { loadFixtureCase } from "./fixture-case.js";

export interface OfflineResult {
  text: string;
  notices: string[];
}

export function runOffline(dir: string, caseName: string, details: Details): OfflineResult {
  const { inputs, notices } = loadFixtureCase(dir, caseName);
  const evaluation = evaluate(inputs, {
    now: fixtureNow(inputs.clusterVersion, inputs.clusterOperators),
    // Upstream measures "seriously unavailable" against the real clock even for fixtures (spec §11.3).
    wallClock: wallClockNow(),
  });
  return { text: render(evaluation, details), notices };
}
