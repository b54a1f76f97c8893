// Live mode against the status-aggregator's UpdateStatusService (gRPC): the text of a details
// level (RenderStatus), structured output (GetUpdateStatus as JSON or YAML), and --watch, which
// redraws in place on every WatchUpdateStatus message until interrupted.
import { type CallOptions, Metadata, type ServiceError, status as GrpcStatusCode } from "@grpc/grpc-js";
import { addressHint, defaultAddress, serverAddress, type ServerAddress } from "../../addresses.js";
import { channelCredentials } from "../../connection.js";
import { type CliError, grpcFailure } from "../../exit-codes.js";
import { leanClient, UpdateStatus, UpdateStatusServiceClient, type WatchUpdateStatusResponse } from "@lockstep/contracts";
import type { Details } from "@lockstep/insights";
import { stringify } from "yaml";
import { staleWarning } from "../../stale-warning.js";

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

function structured(status: UpdateStatus | undefined, output: "json" | "yaml"): string {
  const json = status ? UpdateStatus.toJSON(status) : {};
  return output === "json" ? `${JSON.stringify(json, null, 2)}\n` : stringify(json);
}

/**
 * The stale-view warning goes to `warn` (stderr) before the answer, so stdout stays the exact oc text
 * (or parseable JSON/YAML); under --watch it heads each redraw instead.
 */
export async function runLive(options: LiveOptions, out: NodeJS.WritableStream = process.stdout, warn: NodeJS.WritableStream = process.stderr): Promise<void> {
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
      const warning = staleWarning(res.freshness);
      if (warning) warn.write(`${warning}\n`);
      out.write("text" in res ? res.text : structured(res.status, options.output as "json" | "yaml"));
      return;
    }
    await watch(client, addr, options, out, render);
  } finally {
    client.close();
  }
}

const CLEAR = "\x1b[H\x1b[2J";

async function watch(client: UpdateStatusServiceClient, addr: ServerAddress, options: LiveOptions, out: NodeJS.WritableStream, render: () => Promise<string>): Promise<void> {
  const stream = client.watchUpdateStatus({ omitNodes: options.output === "text" });
  const stop = () => stream.cancel();
  process.once("SIGINT", stop);
  let drawing = Promise.resolve();
  try {
    await new Promise<void>((resolve, reject) => {
      stream.on("data", (m: WatchUpdateStatusResponse) => {
        // Text is redrawn from RenderStatus so it is always the exact oc text; draws never interleave.
        drawing = drawing
          .then(async () => {
            if (options.output === "text") out.write(`${CLEAR}${await render()}`);
            else if (options.output === "json") out.write(`${JSON.stringify({ status: m.status ? UpdateStatus.toJSON(m.status) : undefined, changedNodes: m.changedNodes.length, removedNodes: m.removedNodes })}\n`);
            else out.write(`---\n${structured(m.status, "yaml")}`);
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
  } finally {
    process.removeListener("SIGINT", stop);
  }
}
