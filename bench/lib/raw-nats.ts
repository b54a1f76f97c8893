// The raw nats-server ceiling for the system bench, in a process of its own so that nothing else
// shares its event loop (in the bench process, cluster-sim's timers would slow the publisher down
// and understate the ceiling). Prints one JSON line: {"core": msg/s, "js": msg/s}.
// Run: node --import tsx lib/raw-nats.ts <nats url> <message bytes>
import { execFile } from "node:child_process";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";

export interface RawRates {
  /** Core publish → subscriber, msg/s. */
  core: number;
  /** JetStream publishes acknowledged, 256 in flight, msg/s. */
  js: number;
}

/** Raw nats-server rates for messages of `size` bytes: core pub/sub and JetStream publish (256 in flight). */
export async function rawNatsRates(url: string, size: number): Promise<RawRates> {
  const pub = await connect({ servers: url });
  const sub = await connect({ servers: url });
  const payload = new Uint8Array(size).fill(7);
  let got = 0;
  const s = sub.subscribe("bench.raw", { callback: () => void got++ });
  await sub.flush();
  const t0 = performance.now();
  while (performance.now() - t0 < 3_000) {
    for (let i = 0; i < 1_000; i++) pub.publish("bench.raw", payload);
    await pub.flush();
  }
  const sent = got;
  const core = sent / ((performance.now() - t0) / 1000);
  s.unsubscribe();
  const jsm = await jetstreamManager(pub);
  await jsm.streams.add({ name: "BENCH_RAW", subjects: ["bench.js.>"] });
  const js = jetstream(pub);
  let acked = 0;
  const t1 = performance.now();
  const inflight = new Set<Promise<unknown>>();
  while (performance.now() - t1 < 3_000) {
    const p = js.publish(`bench.js.${acked % 1000}`, payload).then(() => void acked++);
    inflight.add(p);
    void p.finally(() => inflight.delete(p));
    if (inflight.size >= 256) await Promise.race(inflight);
  }
  await Promise.all(inflight);
  const jsRate = acked / ((performance.now() - t1) / 1000);
  await jsm.streams.delete("BENCH_RAW");
  await pub.close();
  await sub.close();
  return { core, js: jsRate };
}

/** Runs rawNatsRates in a child process. */
export function rawNatsRatesInChild(url: string, size: number): Promise<RawRates> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ["--import", "tsx", import.meta.filename, url, String(size)], { cwd: import.meta.dirname }, (err, stdout) => {
      if (err) reject(err);
      else resolve(JSON.parse(stdout.trim().split("\n").at(-1)!) as RawRates);
    });
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.stdout.write(JSON.stringify(await rawNatsRates(process.argv[2]!, Number(process.argv[3]))) + "\n");
  process.exit(0);
}
