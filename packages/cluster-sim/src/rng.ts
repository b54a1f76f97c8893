// Seeded randomness (kube-api.md §17.2): every random choice in the simulator comes from the one
// seeded source, so a scenario run with the same seed takes the same decisions.
export { keyedRandom, seededRng, stableHex, type Rng } from "@lockstep/random";
