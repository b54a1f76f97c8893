// @lockstep/rehearse: a cluster's snapshot replayed through cluster-sim's actors and Lockstep's lease
// policy in virtual time, with a forecast (README "Rehearse an update").
export { rehearse, REHEARSAL_HOLDER, type RehearseOptions } from "./engine.js";
export { renderForecast, humanSeconds, BLOCKER_KINDS, type Forecast, type PoolForecast, type Blocker, type BlockerKind } from "./forecast.js";
export { snapshotOf, snapshotTime, SnapshotError, type RehearsalSnapshot } from "./snapshot.js";
export { loadSnapshotDir, REQUIRED_PARTS, OPTIONAL_PARTS } from "./load-dir.js";
export { loadSnapshotApi } from "./load-api.js";
export { poolPace, timingForPace, defaultNodeSeconds, type PoolPace } from "./history.js";
export { disruptionRules } from "./disruption-rules.js";
export { skewCheck } from "./policy-inputs.js";
export { loadSnapshotNats } from "./load-nats.js";
export { objectsFromState, type StatePlaneSnapshot } from "./from-state.js";
export { dumpClock, suspectWarnings, type DumpClock, type SuspectTimestamp } from "./clock.js";
export { readStatus, holdOfInsight, type StatusReading, type Hold, type HoldScope } from "./status-reading.js";
