// How a node list is paged and filtered (by name, pool, assessment) whatever its items are: the
// aggregator pages over node names, the API layer over built insights. Its own module so the
// aggregator and its gRPC layer share it without importing each other.
export interface NodeKeys<T> {
  name(n: T): string;
  pool(n: T): string;
  assessment(n: T): string | undefined;
}
