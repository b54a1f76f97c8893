// What a state-plane consumer's parts are handed (its own file: the controllers and the consumer
// loop both need it, and neither should import the other for a type).
import type { connectBus, ensureStateBucket, StateCache, StateProjections } from "@lockstep/bus";
import type { StateFreshness } from "@lockstep/runtime";

export type BusConnection = Awaited<ReturnType<typeof connectBus>>;
export type StateBucket = Awaited<ReturnType<typeof ensureStateBucket>>;

/** A connection with both planes (the event stream and the state bucket) known to exist. */
export interface Planes {
  nc: BusConnection;
  kv: StateBucket;
}

/** What a consumer's parts are handed: the connection, its cache of the state plane, and its age. */
export interface StatePlane<P extends StateProjections = never> extends Planes {
  cache: StateCache<P>;
  freshness: StateFreshness;
}
