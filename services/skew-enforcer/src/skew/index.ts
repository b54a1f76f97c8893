// The skew rules live in @lockstep/skew-rules (the rehearsal replays them outside this service).
// This re-export keeps the start-up files' imports as they are.
export * from "@lockstep/skew-rules";
