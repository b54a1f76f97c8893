// Step 0 of mco-behaviors.md §2.6: changes the MCD cannot apply in place at all (the node would go
// Unreconcilable). Needs the raw Ignition sections, which MachineConfigState does not carry, so it
// works on raw MachineConfig objects only. A FIPS change is left to the engine, which reboots.
import { ignitionConfig, MachineConfigError } from "./machine-config.js";

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

export const FORCE_FILE_PATH = "/run/machine-config-daemon-force";

function ignition(raw: unknown): Obj {
  if (!isObj(raw)) throw new MachineConfigError("MachineConfig must be an object");
  const spec = isObj(raw["spec"]) ? raw["spec"] : {};
  const config = ignitionConfig(spec["config"] ?? {});
  return isObj(config) ? config : {};
}

/** Order-insensitive for object keys, order-sensitive for lists; absent, null and empty compare equal. */
function same(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}

function canonical(v: unknown): string {
  if (v === undefined || v === null) return "null";
  if (Array.isArray(v)) return v.length === 0 ? "null" : `[${v.map(canonical).join(",")}]`;
  if (isObj(v)) {
    const keys = Object.keys(v).filter((k) => canonical(v[k]) !== "null").sort();
    return keys.length === 0 ? "null" : `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(",")}}`;
  }
  return JSON.stringify(v);
}

const section = (c: Obj, a: string, b?: string): unknown => {
  const s = c[a];
  return b === undefined ? s : isObj(s) ? s[b] : undefined;
};

function users(c: Obj): Obj[] {
  const u = section(c, "passwd", "users");
  return Array.isArray(u) ? u.filter(isObj) : [];
}

/**
 * Why applying `newRaw` over `oldRaw` is unreconcilable, or undefined when it can be applied.
 * Both arguments are raw MachineConfig objects. Throws MachineConfigError on unreadable input.
 */
export function unreconcilableReason(oldRaw: unknown, newRaw: unknown): string | undefined {
  const o = ignition(oldRaw);
  const n = ignition(newRaw);
  if (!same(section(o, "passwd", "groups"), section(n, "passwd", "groups"))) return "ignition passwd groups section contains changes";
  const coreOf = (us: Obj[]) => us.find((u) => u["name"] === "core");
  const others = (us: Obj[]) => us.filter((u) => u["name"] !== "core");
  if (!same(others(users(o)), others(users(n)))) return "ignition passwd user section contains unsupported changes: users other than core";
  const strip = (u: Obj | undefined) => (u ? { ...u, sshAuthorizedKeys: undefined, passwordHash: undefined } : undefined);
  if (!same(strip(coreOf(users(o))), strip(coreOf(users(n))))) return "ignition passwd user section contains unsupported changes: core user fields other than sshAuthorizedKeys and passwordHash";
  if (!same(section(o, "kernelArguments"), section(n, "kernelArguments"))) return "ignition kernelArguments section contains changes";
  for (const [key, label] of [
    ["disks", "disks"],
    ["filesystems", "filesystems"],
    ["raid", "raid"],
    ["directories", "directories"],
  ] as const) {
    if (!same(section(o, "storage", key), section(n, "storage", key))) return `ignition ${label} section contains changes`;
  }
  const newLinks = section(n, "storage", "links");
  if (Array.isArray(newLinks) && newLinks.length > 0 && !same(section(o, "storage", "links"), newLinks)) return "ignition links section contains changes";
  const files = section(n, "storage", "files");
  for (const f of Array.isArray(files) ? files.filter(isObj) : []) {
    if (Array.isArray(f["append"]) && f["append"].length > 0) return `ignition file ${JSON.stringify(f["path"])} includes append`;
    if (f["path"] === FORCE_FILE_PATH) return `ignition file ${JSON.stringify(FORCE_FILE_PATH)} is not allowed`;
  }
  return undefined;
}
