// The query side of the status-aggregator benchmark in its own process, as `lockstep status` is:
// its heap holds only what it decodes, not kube-sim's, the watcher's and the aggregator's.
// argv[2]: the aggregator's gRPC address. Prints one JSON line of latencies (ms) and exits.
import { PerformanceObserver } from "node:perf_hooks";
import { credentials, makeGenericClientConstructor, Metadata } from "@grpc/grpc-js";
import { UpdateStatusServiceClient, UpdateStatusServiceService, withLeanDecoding } from "@lockstep/contracts";
import { timed } from "./stats.js";

const QUERIES = Number(process.env.BENCH_QUERIES ?? 200);
const address = process.argv[2]!;

// The response deserializer (ts-proto decode) timed on its own.
const decodeMs: number[] = [];
// As `lockstep status` decodes: through the lean reader (BENCH_PLAIN_DECODE=1: ts-proto's default).
const definition = process.env.BENCH_PLAIN_DECODE === "1" ? UpdateStatusServiceService : withLeanDecoding(UpdateStatusServiceService);
const deserialize = definition.getUpdateStatus.responseDeserialize;
const TimedClient = makeGenericClientConstructor(
  {
    ...definition,
    getUpdateStatus: {
      ...definition.getUpdateStatus,
      responseDeserialize: (b: Buffer) => {
        const t = performance.now();
        const out = deserialize(b);
        decodeMs.push(performance.now() - t);
        return out;
      },
    },
  },
  "lockstep.status.v1.UpdateStatusService",
) as unknown as typeof UpdateStatusServiceClient;
const client = new TimedClient(address, credentials.createInsecure(), { "grpc.max_receive_message_length": 256 * 1024 * 1024 });
const call = <Req, Res>(fn: (r: Req, m: Metadata, o: object, cb: (e: Error | null, r: Res) => void) => unknown, req: Req) =>
  new Promise<Res>((resolve, reject) => fn.call(client, req, new Metadata(), {}, (e, r) => (e ? reject(e) : resolve(r))));
const get = (omitNodes: boolean) => call(client.getUpdateStatus as never, { omitNodes });
const render = (details: string) => call<{ details: string }, { text: string }>(client.renderStatus as never, { details });

await timed(10, () => get(false)); // warm-up
await timed(10, () => render("none"));
await timed(3, () => render("all"));
decodeMs.length = 0;
let gcMs = 0;
let gcMax = 0;
const gc = new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    gcMs += e.duration;
    gcMax = Math.max(gcMax, e.duration);
  }
});
gc.observe({ entryTypes: ["gc"] });
const getFull = await timed(QUERIES, () => get(false));
await new Promise((r) => setTimeout(r, 10));
gc.disconnect();
const decode = [...decodeMs];
const getSummary = await timed(QUERIES, () => get(true));
const renderNone = await timed(QUERIES, () => render("none"));
const renderAll = await timed(Math.max(10, QUERIES / 4), () => render("all"));
client.close();
process.stdout.write(`${JSON.stringify({ getFull, decode, gcPerCall: gcMs / QUERIES, gcMax, getSummary, renderNone, renderAll })}\n`);
process.exit(0);
