// registries.conf (containers-registries.conf v2) and upstream's safe/unsafe mirror rules
// (mco-behaviors.md §2.9, upstream pkg/daemon/drain.go). A safe change only reloads CRI-O; an unsafe one drains.
import { parseToml, type TomlTable, type TomlValue } from "./toml.js";

export const REGISTRIES_CONF_PATH = "/etc/containers/registries.conf";

export interface RegistryMirror {
  location: string;
  insecure: boolean;
  /** `pull-from-mirror`: "", "all", "digest-only" or "tag-only". */
  pullFromMirror: string;
}

export interface Registry {
  prefix: string;
  location: string;
  blocked: boolean;
  insecure: boolean;
  mirrorByDigestOnly: boolean;
  mirrors: RegistryMirror[];
}

export interface RegistriesConf {
  unqualifiedSearchRegistries: string[];
  registries: Registry[];
}

export class RegistriesConfError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RegistriesConfError";
  }
}

const isTable = (v: TomlValue | undefined): v is TomlTable => typeof v === "object" && v !== null && !Array.isArray(v);

function str(t: TomlTable, k: string, where: string): string {
  const v = t[k];
  if (v === undefined) return "";
  if (typeof v !== "string") throw new RegistriesConfError(`${where}.${k} must be a string`);
  return v;
}

function bool(t: TomlTable, k: string, where: string): boolean {
  const v = t[k];
  if (v === undefined) return false;
  if (typeof v !== "boolean") throw new RegistriesConfError(`${where}.${k} must be a boolean`);
  return v;
}

function tables(t: TomlTable, k: string, where: string): TomlTable[] {
  const v = t[k];
  if (v === undefined) return [];
  if (!Array.isArray(v) || !v.every(isTable)) throw new RegistriesConfError(`${where}.${k} must be an array of tables`);
  return v as TomlTable[];
}

/** Parses registries.conf text; throws RegistriesConfError (wrapping TOML errors) on bad input. */
export function parseRegistriesConf(text: string): RegistriesConf {
  let doc: TomlTable;
  try {
    doc = parseToml(text);
  } catch (e) {
    throw new RegistriesConfError(`cannot parse registries.conf: ${(e as Error).message}`);
  }
  const search = doc["unqualified-search-registries"];
  let unqualifiedSearchRegistries: string[] = [];
  if (search !== undefined) {
    if (!Array.isArray(search) || !search.every((s) => typeof s === "string"))
      throw new RegistriesConfError("unqualified-search-registries must be an array of strings");
    unqualifiedSearchRegistries = search as string[];
  }
  const registries = tables(doc, "registry", "").map((r, i): Registry => {
    const where = `registry[${i}]`;
    return {
      prefix: str(r, "prefix", where),
      location: str(r, "location", where),
      blocked: bool(r, "blocked", where),
      insecure: bool(r, "insecure", where),
      mirrorByDigestOnly: bool(r, "mirror-by-digest-only", where),
      mirrors: tables(r, "mirror", where).map((m, j) => ({
        location: str(m, "location", `${where}.mirror[${j}]`),
        insecure: bool(m, "insecure", `${where}.mirror[${j}]`),
        pullFromMirror: str(m, "pull-from-mirror", `${where}.mirror[${j}]`),
      })),
    };
  });
  return { unqualifiedSearchRegistries, registries };
}

export interface RegistriesSafety {
  safe: boolean;
  /** Why the change is unsafe; empty when safe. */
  reasons: string[];
}

const DIGEST_ONLY = "digest-only";
const registryKey = (r: Registry): string => (r.prefix !== "" ? r.prefix : r.location);

function sameRegistry(a: Registry, b: Registry): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * Decides whether a registries.conf change can be applied with a CRI-O reload alone (§2.9 rules 1–4).
 * An absent file is an empty configuration.
 */
export function registriesChangeSafety(oldConf: RegistriesConf, newConf: RegistriesConf): RegistriesSafety {
  const reasons: string[] = [];
  const oldSearch = oldConf.unqualifiedSearchRegistries;
  const newSearch = newConf.unqualifiedSearchRegistries;
  if (newSearch.length < oldSearch.length || oldSearch.some((s, i) => newSearch[i] !== s))
    reasons.push("unqualified-search-registries: entries were removed or reordered");

  const newByKey = new Map(newConf.registries.map((r) => [registryKey(r), r]));
  const oldByKey = new Map(oldConf.registries.map((r) => [registryKey(r), r]));
  for (const [key, o] of oldByKey) {
    const n = newByKey.get(key);
    if (n === undefined) {
      reasons.push(`registry ${JSON.stringify(key)} was removed`);
      continue;
    }
    if (sameRegistry(o, n)) continue;
    if (o.prefix !== n.prefix || o.location !== n.location) reasons.push(`registry ${JSON.stringify(key)}: prefix or location changed`);
    if (o.blocked !== n.blocked) reasons.push(`registry ${JSON.stringify(key)}: blocked changed`);
    if (o.insecure !== n.insecure) reasons.push(`registry ${JSON.stringify(key)}: insecure changed`);
    const newMirrors = new Map(n.mirrors.map((m) => [m.location, m]));
    const oldMirrors = new Map(o.mirrors.map((m) => [m.location, m]));
    for (const [loc, om] of oldMirrors) {
      const nm = newMirrors.get(loc);
      if (nm === undefined) reasons.push(`registry ${JSON.stringify(key)}: mirror ${JSON.stringify(loc)} was removed`);
      else if (nm.pullFromMirror !== om.pullFromMirror && nm.pullFromMirror !== DIGEST_ONLY)
        reasons.push(`registry ${JSON.stringify(key)}: mirror ${JSON.stringify(loc)} pull-from-mirror changed to ${JSON.stringify(nm.pullFromMirror)}`);
    }
    for (const [loc, nm] of newMirrors) {
      if (oldMirrors.has(loc)) continue;
      if (nm.pullFromMirror !== DIGEST_ONLY && !n.mirrorByDigestOnly)
        reasons.push(`registry ${JSON.stringify(key)}: added mirror ${JSON.stringify(loc)} is not digest-only`);
    }
  }
  for (const [key, n] of newByKey) {
    if (oldByKey.has(key)) continue;
    if (n.mirrors.length === 0) {
      if (!n.mirrorByDigestOnly) reasons.push(`new registry ${JSON.stringify(key)} has no mirrors and is not mirror-by-digest-only`);
      continue;
    }
    for (const m of n.mirrors)
      if (m.pullFromMirror !== DIGEST_ONLY)
        reasons.push(`new registry ${JSON.stringify(key)}: mirror ${JSON.stringify(m.location)} is not digest-only`);
  }
  return { safe: reasons.length === 0, reasons };
}

/** Parses both texts (absent = empty file) and applies registriesChangeSafety. Throws on undecodable input. */
export function registriesTextChangeSafety(oldText: string | undefined, newText: string | undefined): RegistriesSafety {
  return registriesChangeSafety(parseRegistriesConf(oldText ?? ""), parseRegistriesConf(newText ?? ""));
}
