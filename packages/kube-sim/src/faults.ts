// Seeded, reproducible fault injection (latency, injected error codes, dropped watches, forced 410,
// outages), settable at start and at run time, with the `--fault SPEC` grammar of the CLI.
import { conflict, failure, KubeError, serviceUnavailable, tooManyRequests, type ResourceRef } from "./errors.js";
import { seededRng, type Rng } from "./rng.js";

export type InjectedCode = 409 | 429 | 500 | 503;

export interface ErrorRule {
  code: InjectedCode;
  /** 0..1 */
  probability: number;
  /** get, list, watch, create, update, patch, delete, deletecollection; any when omitted. */
  verb?: string;
  /** Plural (`nodes`), `plural/subresource` (`nodes/status`) or `plural.group`; any when omitted. */
  resource?: string;
}

export interface FaultConfig {
  /** Seed of the fault RNG (default 1). Same seed + same request order = same faults. */
  seed?: number;
  latencyMs?: number;
  latencyJitterMs?: number;
  errors?: ErrorRule[];
  /** Close every open watch stream every N ms (clean end: clients reconnect from their RV). */
  dropWatchesEveryMs?: number;
  /** Number of upcoming watch requests (with a resourceVersion) answered with 410. */
  goneNextWatch?: number;
  /** How that 410 is delivered: 200 + ERROR event (default, like 1.20), HTTP 410, or reason Gone. */
  goneMode?: "event" | "http" | "gone-event";
  /** An outage window from now: every request fails (503) or connections are refused. */
  outage?: { durationMs: number; mode?: "503" | "refuse" };
}

export interface RequestInfo {
  verb: string;
  resource?: ResourceRef;
  subresource?: string;
  name?: string;
}

const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/;

export function parseDuration(text: string): number {
  const m = DURATION.exec(text.trim());
  if (!m) throw new Error(`invalid duration "${text}" (use e.g. 20ms, 5s, 1m)`);
  const n = Number(m[1]);
  const unit = m[2] ?? "ms";
  return n * ({ ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const)[unit as "ms"];
}

/**
 * Parses one `--fault` spec into a partial config:
 * `error=500:0.05:verb=update:resource=nodes`, `latency=20ms[:jitter=5ms]`, `drop-watches=10s`,
 * `gone-next-watch[=N][:mode=http]`, `outage=5s[:mode=refuse]`, `seed=42`.
 */
export function parseFaultSpec(spec: string): FaultConfig {
  const [head = "", ...opts] = spec.split(":");
  const eq = head.indexOf("=");
  const name = (eq < 0 ? head : head.slice(0, eq)).trim();
  const value = eq < 0 ? "" : head.slice(eq + 1).trim();
  const kv = new Map<string, string>();
  const positional: string[] = [];
  for (const o of opts) {
    const i = o.indexOf("=");
    if (i < 0) positional.push(o.trim());
    else kv.set(o.slice(0, i).trim(), o.slice(i + 1).trim());
  }
  const bad = (why: string): never => {
    throw new Error(`invalid fault "${spec}": ${why}`);
  };
  switch (name) {
    case "error": {
      const code = Number(value);
      if (![409, 429, 500, 503].includes(code)) bad("error code must be 409, 429, 500 or 503");
      const p = Number(positional[0] ?? kv.get("p") ?? "1");
      if (!(p >= 0 && p <= 1)) bad("probability must be between 0 and 1");
      for (const k of kv.keys()) if (!["verb", "resource", "p"].includes(k)) bad(`unknown option ${k}`);
      const rule: ErrorRule = { code: code as InjectedCode, probability: p };
      if (kv.has("verb")) rule.verb = kv.get("verb")!;
      if (kv.has("resource")) rule.resource = kv.get("resource")!;
      return { errors: [rule] };
    }
    case "latency": {
      if (!value) bad("latency needs a duration");
      const c: FaultConfig = { latencyMs: parseDuration(value) };
      if (kv.has("jitter")) c.latencyJitterMs = parseDuration(kv.get("jitter")!);
      return c;
    }
    case "drop-watches":
      if (!value) bad("drop-watches needs a period");
      return { dropWatchesEveryMs: parseDuration(value) };
    case "gone-next-watch": {
      const n = value ? Number(value) : 1;
      if (!Number.isInteger(n) || n < 1) bad("count must be a positive integer");
      const mode = kv.get("mode") ?? "event";
      if (!["event", "http", "gone-event"].includes(mode)) bad("mode must be event, http or gone-event");
      return { goneNextWatch: n, goneMode: mode as FaultConfig["goneMode"] };
    }
    case "outage": {
      if (!value) bad("outage needs a duration");
      const mode = kv.get("mode") ?? "503";
      if (mode !== "503" && mode !== "refuse") bad("mode must be 503 or refuse");
      return { outage: { durationMs: parseDuration(value), mode: mode as "503" | "refuse" } };
    }
    case "seed": {
      const n = Number(value);
      if (!Number.isInteger(n)) bad("seed must be an integer");
      return { seed: n };
    }
    default:
      return bad("unknown fault (error, latency, drop-watches, gone-next-watch, outage, seed)");
  }
}

/** Merges partial configs: error rules accumulate, scalars are overwritten. */
export function mergeFaults(a: FaultConfig, b: FaultConfig): FaultConfig {
  const out: FaultConfig = { ...a, ...b };
  out.errors = [...(a.errors ?? []), ...(b.errors ?? [])];
  return out;
}

export class Faults {
  private cfg: FaultConfig = {};
  private rng: Rng = seededRng(1);
  private outageUntil = 0;
  private outageMode: "503" | "refuse" = "503";
  /** Called after every change so the server can (re)arm timers and listeners. */
  onChange: () => void = () => {};

  constructor(initial?: FaultConfig) {
    if (initial) this.set(initial);
  }

  /** Replaces the whole configuration (and reseeds). */
  set(cfg: FaultConfig): void {
    this.cfg = { ...cfg, errors: [...(cfg.errors ?? [])] };
    this.rng = seededRng(cfg.seed ?? 1);
    this.outageUntil = 0;
    if (cfg.outage) this.startOutage(cfg.outage.durationMs, cfg.outage.mode);
    this.onChange();
  }

  /** Adds to the configuration (error rules accumulate). */
  add(cfg: FaultConfig): void {
    const seedChanged = cfg.seed !== undefined;
    this.cfg = mergeFaults(this.cfg, cfg);
    if (seedChanged) this.rng = seededRng(cfg.seed!);
    if (cfg.outage) this.startOutage(cfg.outage.durationMs, cfg.outage.mode);
    this.onChange();
  }

  addSpecs(specs: string[]): void {
    for (const s of specs) this.add(parseFaultSpec(s));
  }

  clear(): void {
    this.set({});
  }

  get config(): FaultConfig {
    return { ...this.cfg, errors: [...(this.cfg.errors ?? [])] };
  }

  startOutage(durationMs: number, mode: "503" | "refuse" = "503"): void {
    this.outageUntil = Date.now() + durationMs;
    this.outageMode = mode;
  }

  /** The active outage mode, if any. */
  outage(): "503" | "refuse" | undefined {
    if (this.outageUntil === 0) return undefined;
    if (Date.now() >= this.outageUntil) {
      this.outageUntil = 0;
      return undefined;
    }
    return this.outageMode;
  }

  outageRemainingMs(): number {
    return this.outage() ? this.outageUntil - Date.now() : 0;
  }

  latency(): number {
    const base = this.cfg.latencyMs ?? 0;
    const jitter = this.cfg.latencyJitterMs ?? 0;
    if (!base && !jitter) return 0;
    return base + (jitter ? this.rng() * jitter : 0);
  }

  /** The injected error for this request, drawn from the seeded RNG, if any. */
  errorFor(req: RequestInfo): KubeError | undefined {
    if (this.outage() === "503") return serviceUnavailable();
    for (const r of this.cfg.errors ?? []) {
      if (r.verb && r.verb !== req.verb) continue;
      if (r.resource && !resourceMatches(r.resource, req)) continue;
      if (this.rng() >= r.probability) continue;
      return injected(r.code, req);
    }
    return undefined;
  }

  /** Consumes one forced 410 for a watch, returning how to deliver it. */
  takeGone(): FaultConfig["goneMode"] | undefined {
    const n = this.cfg.goneNextWatch ?? 0;
    if (n <= 0) return undefined;
    this.cfg.goneNextWatch = n - 1;
    return this.cfg.goneMode ?? "event";
  }

  get dropWatchesEveryMs(): number {
    return this.cfg.dropWatchesEveryMs ?? 0;
  }
}

function resourceMatches(spec: string, req: RequestInfo): boolean {
  const r = req.resource;
  if (!r) return false;
  const names = [r.plural, r.group ? `${r.plural}.${r.group}` : r.plural];
  if (req.subresource) return names.some((n) => spec === `${n}/${req.subresource}`);
  return names.includes(spec);
}

function injected(code: InjectedCode, req: RequestInfo): KubeError {
  switch (code) {
    case 409:
      return conflict(req.resource ?? { group: "", plural: "unknown", kind: "" }, req.name ?? "");
    case 429:
      return tooManyRequests("Too many requests, please try again later.", undefined, 1);
    case 500:
      return new KubeError(failure(500, "Internal error occurred: injected fault", "InternalError", { causes: [{ message: "injected fault" }] }));
    case 503:
      return serviceUnavailable();
  }
}
