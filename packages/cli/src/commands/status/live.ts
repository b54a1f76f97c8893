// Live mode against the status-aggregator's UpdateStatusService (gRPC): the text of a details
// level (RenderStatus), structured output (GetUpdateStatus as JSON or YAML), and --watch, which
// redraws in place on every WatchUpdateStatus message until interrupted. Every answer says how old
// the aggregator's view is: a stale one is warned of on stderr, carried as `freshness` in JSON/YAML,
// and makes the command exit 3 (EXIT.REFUSED, as `check-upgrade` does when the view is stale).
import { type CallOptions, Metadata, type ServiceError, status as GrpcStatusCode } from "@grpc/grpc-js";
import { addressHint, defaultAddress, serverAddress, type ServerAddress } from "../../addresses.js";
import { channelCredentials } from "../../connection.js";
import { type CliError, grpcFailure } from "../../exit-codes.js";
import { leanClient, type StateFreshness, UpdateStatus, UpdateStatusServiceClient, type WatchUpdateStatusResponse } from "@lockstep/contracts";
import type { Details } from "@lockstep/insights";
import { stringify } from "yaml";
import { staleWarning, warnIfStale } from "../../stale-warning.js";

export const DEFAULT_STATUS_ADDR = defaultAddress("status-aggregator");
/** grpc-js refuses answers over 4 MiB by default; 64 MiB holds the node insights of ~200,000 nodes. */
const MAX_STATUS_BYTES = 64 * 1024 * 1024;

export interface LiveOptions {
  server: string | undefined;
  watch: boolean;
  output: "text" | "json" | "yaml";
  details: Details;
}

/** --server, else LOCKSTEP_STATUS_AGGREGATOR_ADDR, else the default port on localhost. */
export function statusServerAddress(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): ServerAddress {
  return serverAddress("status-aggregator", flag, env);
}

/** A gRPC failure of the status-aggregator as the CLI reports it (message and exit code). */
export function describeError(err: ServiceError, target: string | ServerAddress): CliError {
  return typeof target === "string" ? grpcFailure(err, "status-aggregator", target) : grpcFailure(err, "status-aggregator", target.address, addressHint(target));
}

const deadline = () => new Date(Date.now() + 15_000);

export type UnaryCall<Req, Res> = (req: Req, meta: Metadata, opts: Partial<CallOptions>, cb: (err: ServiceError | null, res: Res) => void) => unknown;

/** One unary call with a deadline; gRPC errors become CliErrors naming the server. */
export function unary<Req, Res>(call: UnaryCall<Req, Res>, req: Req, addr: string | ServerAddress): Promise<Res> {
  return new Promise((resolve, reject) =>
    call(req, new Metadata(), { deadline: deadline() }, (err, res) => (err ? reject(describeError(err, addr)) : resolve(res))),
  );
}

/** Every field, `stale: false` included (proto JSON would leave defaults out), as `skew -o json` does. */
const freshnessJson = (f: StateFreshness) => ({ ageSeconds: f.ageSeconds, stale: f.stale, maxAgeSeconds: f.maxAgeSeconds, heard: f.heard });

/** The status's own fields, plus `freshness` when the aggregator says how old its view is. */
export function structured(status: UpdateStatus | undefined, output: "json" | "yaml", freshness?: StateFreshness): string {
  const json = { ...(status ? (UpdateStatus.toJSON(status) as object) : {}), ...(freshness ? { freshness: freshnessJson(freshness) } : {}) };
  return output === "json" ? `${JSON.stringify(json, null, 2)}\n` : stringify(json);
}

/** What a live run ended with: whether the (last) answer came from a stale view. */
export interface LiveResult {
  stale: boolean;
}

/**
 * The stale-view warning goes to `warn` (stderr) before the answer, so stdout stays the exact oc text
 * (or parseable JSON/YAML); under --watch it heads each redraw instead.
 */
export async function runLive(options: LiveOptions, out: NodeJS.WritableStream = process.stdout, warn: NodeJS.WritableStream = process.stderr): Promise<LiveResult> {
  const addr = statusServerAddress(options.server);
  // Lean decoding and a larger receive limit: at 10,000 nodes the full answer is about 3 MiB.
  const StatusClient = leanClient(UpdateStatusServiceClient);
  const client = new StatusClient(addr.address, channelCredentials(), { "grpc.max_receive_message_length": MAX_STATUS_BYTES });
  try {
    const rendered = () => unary(client.renderStatus.bind(client), { details: options.details }, addr);
    const render = async () => {
      const res = await rendered();
      const warning = staleWarning(res.freshness);
      return warning ? `${warning}\n${res.text}` : res.text;
    };
    if (!options.watch) {
      const res = options.output === "text" ? await rendered() : await unary(client.getUpdateStatus.bind(client), { omitNodes: false }, addr);
      warnIfStale(res.freshness, undefined, warn);
      out.write("text" in res ? res.text : structured(res.status, options.output as "json" | "yaml", res.freshness));
      return { stale: res.freshness?.stale === true };
    }
    return await watch(client, addr, options, out, warn, render);
  } finally {
    client.close();
  }
}

const CLEAR = "\x1b[H\x1b[2J";

async function watch(client: UpdateStatusServiceClient, addr: ServerAddress, options: LiveOptions, out: NodeJS.WritableStream, warn: NodeJS.WritableStream, render: () => Promise<string>): Promise<LiveResult> {
  const stream = client.watchUpdateStatus({ omitNodes: options.output === "text" });
  const stop = () => stream.cancel();
  process.once("SIGINT", stop);
  let drawing = Promise.resolve();
  // As of the last message: a message alone with freshness is the view turning stale or fresh.
  let stale = false;
  try {
    await new Promise<void>((resolve, reject) => {
      stream.on("data", (m: WatchUpdateStatusResponse) => {
        const wasStale = stale;
        if (m.freshness) stale = m.freshness.stale;
        // Text redraws carry the warning at their head; structured output warns on stderr as it turns stale.
        const warning = options.output !== "text" && stale && !wasStale ? staleWarning(m.freshness) : undefined;
        if (warning) warn.write(`${warning}\n`);
        // Text is redrawn from RenderStatus so it is always the exact oc text; draws never interleave.
        drawing = drawing
          .then(async () => {
            if (options.output === "text") out.write(`${CLEAR}${await render()}`);
            else if (options.output === "json") {
              const freshness = m.freshness ? freshnessJson(m.freshness) : undefined;
              out.write(`${JSON.stringify({ status: m.status ? UpdateStatus.toJSON(m.status) : undefined, changedNodes: m.changedNodes.length, removedNodes: m.removedNodes, freshness })}\n`);
            } else out.write(`---\n${structured(m.status, "yaml", m.freshness)}`);
          })
          .catch((err: unknown) => {
            stream.cancel();
            reject(err);
          });
      });
      stream.on("error", (err: ServiceError) => (err.code === GrpcStatusCode.CANCELLED ? resolve() : reject(describeError(err, addr))));
      stream.on("end", () => resolve());
    });
    await drawing;
    return { stale };
  } finally {
    process.removeListener("SIGINT", stop);
  }
}
