// Node flags the `lockstep` CLI runs with (scripts/lockstep.mjs), shared with the benchmark that
// times it as a client (bench/status-aggregator.ts).
// A 32 MiB young generation: `lockstep status -o json` against 10,000 nodes decodes about 14 MiB of
// objects per answer; with the default 16 MiB semi-space they are copied and promoted mid-decode,
// and garbage collection was most of the call.
export const CLI_NODE_FLAGS = ["--max-semi-space-size=32"];
