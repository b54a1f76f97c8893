// How old a consumer's view of the state plane is: the time since the watcher's heartbeat was last
// *received*, on the consumer's own monotonic clock (so neither clock skew between pods nor a wall
// clock step matters). Before any heartbeat arrived, the age counts from the consumer's start: a
// heartbeat loaded with the initial values was written at a time this process cannot measure, so it
// vouches for nothing, and a consumer started while the watcher is dead turns stale within its bound.

/** What a consumer knows of the watcher's heartbeat. */
export interface StateAge {
  /** Milliseconds since the last heartbeat was received (or since the start when none was). */
  ageMs: number;
  /** False until a heartbeat arrived since the start. */
  heard: boolean;
}

/** Pure: the age at `now` given the last receipt time (undefined: none yet) and the start time. */
export function stateAge(lastReceivedAt: number | undefined, startedAt: number, now: number): StateAge {
  if (lastReceivedAt === undefined) return { ageMs: Math.max(0, now - startedAt), heard: false };
  return { ageMs: Math.max(0, now - lastReceivedAt), heard: true };
}

/** Monotonic milliseconds (performance.now): immune to wall-clock steps. */
export const monotonicNow = (): number => performance.now();
