// The policy's pure core lives in @lockstep/lease-policy (the rehearsal replays it outside this
// service). This re-export keeps the start-up files' imports as they are.
export * from "@lockstep/lease-policy";
