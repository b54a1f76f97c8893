// The bus ceiling for the system bench: raw NATS doing the state plane's fan-out and nothing else.
// One publisher process puts values (the system's own state-plane values, captured from the bus)
// into a JetStream KV bucket configured as the state bucket is; five consumer processes (one per
// service) watch the bucket and decode every value with its protobuf type. The ceiling is the puts
// per second from the first put until the last consumer has decoded the last value.
// Each part runs in a process of its own, as the services do, so no event loop is shared.
// Run by the bench: rawFanoutInChildren(url, samples, total, consumers).
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseStateKey, StateKinds } from "@lockstep/contracts";
import { Kvm } from "@nats-io/kv";
import { connect } from "@nats-io/transport-node";

export interface FanoutSample {
  key: string;
  data: Uint8Array;
}

export interface FanoutResult {
  /** Puts per second, first put → last value decoded by every consumer. */
  rate: number;
  /** Values each consumer decoded. */
  decoded: number[];
  /** Mean value size, bytes. */
  avgBytes: number;
}

// A fresh key per put: with history 1, a second put to one key could replace the first before a
// consumer was sent it, and the consumer would be credited with work it never did.
const keyOf = (sample: string, i: number) => `${sample}-r${i}`;

/** Publishes `total` values cycling through the samples, `inflight` puts at a time. */
async function publish(url: string, bucket: string, samplesFile: string, total: number, inflight: number): Promise<{ t0: number; t1: number }> {
  const samples = (JSON.parse(readFileSync(samplesFile, "utf8")) as Array<{ key: string; data: string }>).map((s) => ({ key: s.key, data: Buffer.from(s.data, "base64") }));
  const nc = await connect({ servers: url });
  const kv = await new Kvm(nc).open(bucket);
  let next = 0;
  const t0 = Date.now();
  await Promise.all(
    Array.from({ length: inflight }, async () => {
      while (next < total) {
        const i = next++;
        const s = samples[i % samples.length]!;
        await kv.put(keyOf(s.key, i), s.data);
      }
    }),
  );
  const t1 = Date.now();
  await nc.close();
  return { t0, t1 };
}

/** Watches the bucket, decodes each value with the type of its key's kind; done after `total`. */
async function consume(url: string, bucket: string, total: number): Promise<{ doneAt: number; decoded: number }> {
  const nc = await connect({ servers: url });
  const kv = await new Kvm(nc).open(bucket);
  const iter = await kv.watch({ key: ">" });
  process.stdout.write("ready\n");
  let decoded = 0;
  for await (const e of iter) {
    if (e.operation !== "PUT") continue;
    const parsed = parseStateKey(e.key);
    if (parsed) StateKinds[parsed.kind].codec.decode(e.value);
    if (++decoded >= total) break;
  }
  const doneAt = Date.now();
  await nc.close();
  return { doneAt, decoded };
}

function child(args: string[], onLine: (line: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ["--import", "tsx", import.meta.filename, ...args], { cwd: import.meta.dirname, stdio: ["ignore", "pipe", "inherit"] });
    let buf = "";
    p.stdout.on("data", (d: Buffer) => {
      buf += d.toString();
      for (let i = buf.indexOf("\n"); i >= 0; i = buf.indexOf("\n")) {
        onLine(buf.slice(0, i));
        buf = buf.slice(i + 1);
      }
    });
    p.once("exit", (code) => (code === 0 ? resolve() : reject(new Error(`raw fan-out ${args[0]} exited with ${code}`))));
  });
}

/** Runs the ceiling: a bucket of its own on the nats-server at `url`, 1 publisher, `consumers` consumers. */
export async function rawFanoutInChildren(url: string, samples: FanoutSample[], total: number, consumers = 5, inflight = 64): Promise<FanoutResult> {
  if (samples.length === 0) throw new Error("raw fan-out: no sample values to publish");
  const dir = mkdtempSync(join(tmpdir(), "lockstep-bench-fanout-"));
  const file = join(dir, "samples.json");
  writeFileSync(file, JSON.stringify(samples.map((s) => ({ key: s.key, data: Buffer.from(s.data).toString("base64") }))));
  const bucket = `bench-fanout-${process.pid}`;
  const nc = await connect({ servers: url });
  const kvm = new Kvm(nc);
  // As the state bucket is created (packages/bus setup): history 1, file storage.
  const kv = await kvm.create(bucket, { history: 1 });
  try {
    const results: Array<{ doneAt: number; decoded: number }> = [];
    let ready = 0;
    let allReady!: () => void;
    const readyP = new Promise<void>((r) => (allReady = r));
    const running = Array.from({ length: consumers }, () =>
      child(["consume", url, bucket, String(total)], (line) => {
        if (line === "ready") {
          if (++ready === consumers) allReady();
        } else results.push(JSON.parse(line) as { doneAt: number; decoded: number });
      }),
    );
    await Promise.race([readyP, Promise.all(running)]);
    let pub: { t0: number; t1: number } | undefined;
    await child(["publish", url, bucket, file, String(total), String(inflight)], (line) => (pub = JSON.parse(line) as { t0: number; t1: number }));
    await Promise.all(running);
    if (!pub || results.length !== consumers) throw new Error("raw fan-out: a part reported nothing");
    const end = Math.max(...results.map((r) => r.doneAt));
    const avgBytes = samples.reduce((a, s) => a + s.data.length, 0) / samples.length;
    return { rate: total / ((end - pub.t0) / 1000), decoded: results.map((r) => r.decoded), avgBytes };
  } finally {
    await kv.destroy().catch(() => undefined);
    await nc.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [mode, url, bucket, a, b, c] = process.argv.slice(2) as [string, string, string, string, string?, string?];
  if (mode === "publish") process.stdout.write(JSON.stringify(await publish(url, bucket, a, Number(b), Number(c))) + "\n");
  else if (mode === "consume") process.stdout.write(JSON.stringify(await consume(url, bucket, Number(a))) + "\n");
  else throw new Error(`raw-fanout: unknown mode ${mode}`);
  process.exit(0);
}
