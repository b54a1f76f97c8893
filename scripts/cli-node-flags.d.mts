/** Node flags the `lockstep` CLI runs with (see cli-node-flags.mjs). */
export declare const CLI_NODE_FLAGS: readonly string[];
