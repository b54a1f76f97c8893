// `lockstep events [--follow] [--since DURATION] [--subject GLOB] [-o text|json|yaml]`: the event
// stream, decoded, one line per event (time, fact, the sentence the demo's event log shows), like
// `kubectl get events -w`. Reads JetStream with an ordered consumer: nothing is left on the server.
import { closeBus, connectBus } from "@lockstep/bus";
import { decodeEvent, describeEvent, EVENT_SUBJECT_PREFIX, EVENT_SUBJECTS, EVENTS_STREAM, HEADER_TYPE, type DecodedEvent } from "@lockstep/contracts";
import { DeliverPolicy, jetstream, jetstreamManager } from "@nats-io/jetstream";
import { type Command, InvalidArgumentError, Option } from "commander";
import { stringify } from "yaml";
import { CliError, EXIT } from "../exit-codes.js";

type Output = "text" | "json" | "yaml";

const UNITS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `90s`, `10m`, `1h30m`, `2d` → milliseconds; anything else is a usage error saying so. */
export function durationArg(value: string): number {
  const parts = [...value.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join("") !== value) throw new InvalidArgumentError(`${JSON.stringify(value)} is not a duration (e.g. 90s, 10m, 1h30m)`);
  return parts.reduce((ms, p) => ms + Number(p[1]) * UNITS[p[2]!]!, 0);
}

/** A glob over the fact (`lease.*`, `bootimage.*`, `*.denied`): `*` within a token, `>` or `**` for the rest. */
export function factMatcher(glob: string | undefined): (fact: string) => boolean {
  if (!glob) return () => true;
  const re = new RegExp(
    `^${glob
      .split(/(\*\*|\*|>)/)
      .map((part) => (part === "**" || part === ">" ? ".*" : part === "*" ? "[^.]*" : part.replace(/[.+?^${}()|[\]\\]/g, "\\$&")))
      .join("")}$`,
  );
  return (fact) => re.test(fact);
}

export interface EventLine {
  time: string;
  seq: number;
  fact: string;
  subject: string;
  id: string;
  text: string;
  message: unknown;
}

const factOf = (subject: string) => subject.slice(EVENT_SUBJECT_PREFIX.length + 1);

/** One decoded stream message as printed. */
export function eventLine(seq: number, e: DecodedEvent): EventLine {
  const m = e.message as { meta?: { id?: string; occurredAt?: Date } };
  return {
    time: (m.meta?.occurredAt ?? new Date(0)).toISOString(),
    seq,
    fact: factOf(e.type.subject),
    subject: e.type.subject,
    id: m.meta?.id ?? "",
    text: describeEvent(e),
    message: (e.type.codec as { toJSON(m: unknown): unknown }).toJSON(e.message),
  };
}

export function renderLine(l: EventLine, output: Output): string {
  if (output === "json") return `${JSON.stringify(l)}\n`;
  if (output === "yaml") return `---\n${stringify(l)}`;
  return `${l.time}  ${l.fact.padEnd(24)} ${l.text}\n`;
}

export interface EventsOptions {
  nats: string;
  follow?: boolean;
  sinceMs?: number;
  subject?: string;
  output: Output;
  write(text: string): void;
  signal?: AbortSignal;
  now?: () => number;
}

/** Prints the stream's events (from `sinceMs` ago, or all); with `follow`, then new ones until aborted. */
export async function streamEvents(o: EventsOptions): Promise<number> {
  const nc = await connectBus({ servers: o.nats, name: "lockstep-cli-events" }).catch((err) => {
    throw new CliError(EXIT.UNREACHABLE, `cannot reach NATS at ${o.nats} (--nats or LOCKSTEP_NATS_URL): ${(err as Error).message}`);
  });
  const match = factMatcher(o.subject);
  let printed = 0;
  try {
    const jsm = await jetstreamManager(nc);
    const last = (await jsm.streams.info(EVENTS_STREAM).catch(() => undefined))?.state.last_seq ?? 0;
    const start = o.sinceMs === undefined ? undefined : new Date((o.now ?? Date.now)() - o.sinceMs);
    // Without --follow: stop at the last event there was when we started (or at once when none is newer than --since).
    if (!o.follow) {
      if (last === 0) return 0;
      const newest = await jsm.streams.getMessage(EVENTS_STREAM, { seq: last }).catch(() => null);
      if (start && newest && newest.time < start) return 0;
    }
    const consumer = await jetstream(nc).consumers.get(EVENTS_STREAM, {
      filter_subjects: EVENT_SUBJECTS,
      ...(start ? { deliver_policy: DeliverPolicy.StartTime, opt_start_time: start.toISOString() } : { deliver_policy: DeliverPolicy.All }),
    });
    const messages = await consumer.consume();
    const stop = () => void messages.stop();
    o.signal?.addEventListener("abort", stop, { once: true });
    if (o.signal?.aborted) stop();
    try {
      for await (const m of messages) {
        const fact = factOf(m.subject);
        if (match(fact)) {
          try {
            o.write(renderLine(eventLine(m.seq, decodeEvent(m.subject, m.headers?.get(HEADER_TYPE) || undefined, m.data)), o.output));
            printed++;
          } catch (err) {
            // An event this CLI cannot decode (a newer type) is named, not fatal.
            o.write(o.output === "text" ? `#${m.seq} ${m.subject}: cannot decode (${(err as Error).message})\n` : `${JSON.stringify({ seq: m.seq, subject: m.subject, error: (err as Error).message })}\n`);
          }
        }
        if (!o.follow && m.seq >= last) break;
      }
    } finally {
      o.signal?.removeEventListener("abort", stop);
      stop();
    }
    return printed;
  } finally {
    await closeBus(nc);
  }
}

export function register(program: Command): void {
  program
    .command("events")
    .description("print Lockstep's events (the JetStream event stream), decoded, one line each; --follow for new ones")
    .option("--nats <url>", "NATS server (default: $LOCKSTEP_NATS_URL, else nats://127.0.0.1:4222)")
    .option("-f, --follow", "keep printing new events until interrupted")
    .option("--since <duration>", "only events of the last DURATION (e.g. 10m, 1h30m)", durationArg)
    .option("--subject <glob>", "only facts matching GLOB (e.g. 'lease.*', '*.denied', 'bootimage.>')")
    .addOption(new Option("-o, --output <format>", "text, or JSON lines, or YAML documents").choices(["text", "json", "yaml"]).default("text"))
    .action(async (flags: { nats?: string; follow?: boolean; since?: number; subject?: string; output: Output }) => {
      const abort = new AbortController();
      const onSignal = () => abort.abort();
      process.once("SIGINT", onSignal);
      process.once("SIGTERM", onSignal);
      try {
        await streamEvents({
          nats: flags.nats ?? process.env.LOCKSTEP_NATS_URL ?? "nats://127.0.0.1:4222",
          follow: flags.follow,
          ...(flags.since !== undefined ? { sinceMs: flags.since } : {}),
          ...(flags.subject ? { subject: flags.subject } : {}),
          output: flags.output,
          write: (t) => void process.stdout.write(t),
          signal: abort.signal,
        });
      } finally {
        process.off("SIGINT", onSignal);
        process.off("SIGTERM", onSignal);
      }
    });
}
