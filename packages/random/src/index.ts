// @lockstep/random: the one source of seeded randomness (the simulators' choices, kube-sim's fault
// injection and generated names, the lease model's runs), so the same seed replays the same run.
export { seededRng, uuidFrom, type Rng } from "./seeded.js";
export { keyedRandom, stableHex } from "./keyed.js";
