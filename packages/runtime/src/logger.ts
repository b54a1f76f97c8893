/**
 * pino JSON logging.
 *
 * Convention: the message is a constant sentence naming the event ("lease granted",
 * "reconcile failed"); everything variable goes into fields (`{ node, pool, err }`). Constant
 * messages can be grepped, counted and alerted on; put errors under `err` so pino serialises them.
 * Use `logger.child({ component: "skew" })` per module instead of prefixes in messages.
 */
import { pino, type DestinationStream, type Logger } from "pino";
import type { LogLevel } from "./config.js";

export type { Logger } from "pino";

/** Field names whose values never reach a log line, at the top level or one level down. */
const SECRET_FIELDS = [
  "password",
  "token",
  "secret",
  "authorization",
  "cookie",
  "privateKey",
  "private_key",
  "NATS_PASSWORD",
  "NATS_TOKEN",
];

/** Redaction paths for {@link SECRET_FIELDS} (pino wildcards match exactly one level). */
export const REDACT_PATHS = [
  ...SECRET_FIELDS,
  ...SECRET_FIELDS.map((f) => `*.${f}`),
  "headers.authorization",
  "*.headers.authorization",
  'headers["x-api-key"]',
];

/** Options for {@link createLogger}. */
export interface LoggerOptions {
  /** Service name, added to every line as `service`. */
  service: string;
  /** Minimum level. Default "info". */
  level?: LogLevel;
  /** Where lines go; stdout (synchronously) by default. Tests pass an in-memory stream. */
  destination?: DestinationStream;
}

/** A pino logger writing one JSON object per line with `service`, `pid`, ISO `time` and a string `level`. */
export function createLogger(options: LoggerOptions): Logger {
  return pino(
    {
      level: options.level ?? "info",
      base: { service: options.service, pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACT_PATHS, censor: "[redacted]" },
    },
    options.destination ?? pino.destination({ dest: 1, sync: true }),
  );
}

/** A logger that drops everything; for tests and library defaults. */
export function silentLogger(): Logger {
  return pino({ level: "silent" });
}
