// kube-sim's randomness (fault injection, generated names and uids) comes from the one seeded source.
export { seededRng, uuidFrom, type Rng } from "@lockstep/random";
