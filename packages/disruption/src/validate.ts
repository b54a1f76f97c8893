// Validation of a NodeDisruptionPolicy object with upstream's rules and messages (mco-behaviors.md §2.3).
// Every problem is collected, so an object's status can say everything that is wrong at once.
import {
  type NdpAction,
  type NdpActionType,
  DEFAULT_POLICY_LABEL,
  type FileRule,
  type NodeDisruptionPolicy,
  type NodeDisruptionPolicySpec,
  POLICY_API_VERSION,
  POLICY_KIND,
  SPEC_ACTION_TYPES,
  ACTION_TYPES,
  type UnitRule,
} from "./types.js";

export interface PolicyProblem {
  /** Field path in the object, e.g. `spec.files[0].actions`. */
  field: string;
  /** Upstream's message where upstream has one, otherwise an API-server style message. */
  message: string;
}

export type ValidationResult =
  | { ok: true; policy: NodeDisruptionPolicy; problems: [] }
  | { ok: false; problems: PolicyProblem[] };

export const MAX_SPEC_RULES = 50;
export const MAX_ACTIONS = 10;
export const MAX_SERVICE_NAME_LENGTH = 255;

export const MSG_REBOOT_STANDALONE = "Reboot action can only be specified standalone, as it will override any other actions";
export const MSG_NONE_STANDALONE = "None action can only be specified standalone, as it will override any other actions";
export const MSG_RELOAD = "reload is required when type is Reload, and forbidden otherwise";
export const MSG_RESTART = "restart is required when type is Restart, and forbidden otherwise";
export const MSG_SERVICE_SUFFIX =
  'Invalid ${SERVICETYPE} in service name. Expected format is ${NAME}${SERVICETYPE}, where ${SERVICETYPE} must be one of ".service", ".socket", ".device", ".mount", ".automount", ".swap", ".target", ".path", ".timer",".snapshot", ".slice" or ".scope".';
export const MSG_SERVICE_NAME =
  'Invalid ${NAME} in service name. Expected format is ${NAME}${SERVICETYPE}, where {NAME} must be atleast 1 character long and can only consist of alphabets, digits, ":", "-", "_", ".", and "\\"';

const SERVICE_SUFFIX = /\.(service|socket|device|mount|automount|swap|target|path|timer|snapshot|slice|scope)$/;
const SERVICE_NAME = /^[a-zA-Z0-9:._\\-]+\../;

/** Renders a problem the way the API server prints a field error. */
export function formatProblem(p: PolicyProblem): string {
  return `${p.field}: ${p.message}`;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const typeName = (v: unknown): string => (Array.isArray(v) ? "array" : v === null ? "null" : typeof v);
const quote = (s: string): string => JSON.stringify(s);

/**
 * Validates a service or unit name (unit `name`, `reload.serviceName`, `restart.serviceName`).
 * Returns the messages of every rule it breaks.
 */
export function serviceNameProblems(name: string): string[] {
  const out: string[] = [];
  if (name.length === 0) return ["Required value"];
  if (name.length > MAX_SERVICE_NAME_LENGTH) out.push(`Too long: may not be longer than ${MAX_SERVICE_NAME_LENGTH}`);
  if (!SERVICE_SUFFIX.test(name)) out.push(MSG_SERVICE_SUFFIX);
  if (!SERVICE_NAME.test(name)) out.push(MSG_SERVICE_NAME);
  return out;
}

class Collector {
  readonly problems: PolicyProblem[] = [];
  add(field: string, message: string): void {
    this.problems.push({ field, message });
  }
  unknownFields(obj: Obj, field: string, known: readonly string[]): void {
    for (const k of Object.keys(obj)) if (!known.includes(k)) this.add(`${field}.${k}`, "unknown field");
  }
}

function validateServiceRef(c: Collector, v: unknown, field: string): { serviceName: string } | undefined {
  if (!isObj(v)) {
    c.add(field, `Invalid value: ${quote(typeName(v))}: ${field.split(".").pop()} in body must be of type object`);
    return undefined;
  }
  c.unknownFields(v, field, ["serviceName"]);
  const sn = v["serviceName"];
  if (typeof sn !== "string") {
    c.add(`${field}.serviceName`, sn === undefined ? "Required value" : "Invalid value: must be a string");
    return undefined;
  }
  for (const m of serviceNameProblems(sn)) c.add(`${field}.serviceName`, m);
  return { serviceName: sn };
}

function validateActions(c: Collector, v: unknown, field: string, allowSpecial: boolean): NdpAction[] {
  if (v === undefined) {
    c.add(field, "Required value");
    return [];
  }
  if (!Array.isArray(v)) {
    c.add(field, `Invalid value: ${quote(typeName(v))}: actions in body must be of type array`);
    return [];
  }
  if (v.length > MAX_ACTIONS) c.add(field, `Too many: ${v.length}: must have at most ${MAX_ACTIONS} items`);
  const allowed: readonly string[] = allowSpecial ? ACTION_TYPES : SPEC_ACTION_TYPES;
  const actions: NdpAction[] = [];
  v.forEach((a, i) => {
    const af = `${field}[${i}]`;
    if (!isObj(a)) {
      c.add(af, `Invalid value: ${quote(typeName(a))}: ${af} in body must be of type object`);
      return;
    }
    c.unknownFields(a, af, ["type", "reload", "restart"]);
    const type = a["type"];
    if (typeof type !== "string" || type === "") {
      c.add(`${af}.type`, "Required value");
      return;
    }
    if (!allowed.includes(type)) {
      c.add(`${af}.type`, `Unsupported value: ${quote(type)}: supported values: ${allowed.map(quote).join(", ")}`);
      return;
    }
    // The CEL rules sit on the action object: the sub-object must be present exactly for its type.
    if ((type === "Reload") !== (a["reload"] !== undefined)) c.add(af, MSG_RELOAD);
    if ((type === "Restart") !== (a["restart"] !== undefined)) c.add(af, MSG_RESTART);
    const action: NdpAction = { type: type as NdpActionType };
    if (a["reload"] !== undefined) {
      const ref = validateServiceRef(c, a["reload"], `${af}.reload`);
      if (ref && type === "Reload") action.reload = ref;
    }
    if (a["restart"] !== undefined) {
      const ref = validateServiceRef(c, a["restart"], `${af}.restart`);
      if (ref && type === "Restart") action.restart = ref;
    }
    actions.push(action);
  });
  const types = v.map((a) => (isObj(a) ? a["type"] : undefined));
  if (types.includes("Reboot") && v.length > 1) c.add(field, MSG_REBOOT_STANDALONE);
  if (types.includes("None") && v.length > 1) c.add(field, MSG_NONE_STANDALONE);
  return actions;
}

function validateRuleList<K extends "path" | "name">(
  c: Collector,
  v: unknown,
  field: string,
  key: K,
  allowSpecial: boolean,
): Array<Record<K, string> & { actions: NdpAction[] }> {
  if (v === undefined) return [];
  if (!Array.isArray(v)) {
    c.add(field, `Invalid value: ${quote(typeName(v))}: ${field.split(".").pop()} in body must be of type array`);
    return [];
  }
  if (v.length > MAX_SPEC_RULES) c.add(field, `Too many: ${v.length}: must have at most ${MAX_SPEC_RULES} items`);
  const seen = new Set<string>();
  const out: Array<Record<K, string> & { actions: NdpAction[] }> = [];
  v.forEach((r, i) => {
    const rf = `${field}[${i}]`;
    if (!isObj(r)) {
      c.add(rf, `Invalid value: ${quote(typeName(r))}: ${rf} in body must be of type object`);
      return;
    }
    c.unknownFields(r, rf, [key, "actions"]);
    const k = r[key];
    if (typeof k !== "string" || k === "") {
      c.add(`${rf}.${key}`, "Required value");
    } else {
      // The API server's list-map duplicate error.
      if (seen.has(k)) c.add(rf, `Duplicate value: map[string]interface {}{${quote(key)}:${quote(k)}}`);
      seen.add(k);
      if (key === "name") for (const m of serviceNameProblems(k)) c.add(`${rf}.name`, m);
    }
    const actions = validateActions(c, r["actions"], `${rf}.actions`, allowSpecial);
    if (typeof k === "string") out.push({ [key]: k, actions } as Record<K, string> & { actions: NdpAction[] });
  });
  return out;
}

/** True when the object carries lockstep.io/default=true (the shipped upstream defaults). */
export function isDefaultPolicy(obj: unknown): boolean {
  if (!isObj(obj) || !isObj(obj["metadata"])) return false;
  const labels = obj["metadata"]["labels"];
  return isObj(labels) && labels[DEFAULT_POLICY_LABEL] === "true";
}

/**
 * Validates a NodeDisruptionPolicy object (as parsed from YAML or JSON). `Special` is accepted only in
 * objects labelled lockstep.io/default=true, mirroring upstream, where it exists only in the status.
 */
export function validateNodeDisruptionPolicy(obj: unknown): ValidationResult {
  const c = new Collector();
  if (!isObj(obj)) {
    c.add("<root>", `Invalid value: ${quote(typeName(obj))}: object in body must be of type object`);
    return { ok: false, problems: c.problems };
  }
  if (obj["apiVersion"] !== POLICY_API_VERSION)
    c.add("apiVersion", `Unsupported value: ${quote(String(obj["apiVersion"] ?? ""))}: supported values: ${quote(POLICY_API_VERSION)}`);
  if (obj["kind"] !== POLICY_KIND)
    c.add("kind", `Unsupported value: ${quote(String(obj["kind"] ?? ""))}: supported values: ${quote(POLICY_KIND)}`);
  const meta = obj["metadata"];
  let name = "";
  let labels: Record<string, string> | undefined;
  let uid: string | undefined;
  let generation: number | undefined;
  if (!isObj(meta) || typeof meta["name"] !== "string" || meta["name"] === "") {
    c.add("metadata.name", "Required value");
  } else {
    name = meta["name"];
    if (isObj(meta["labels"])) labels = Object.fromEntries(Object.entries(meta["labels"]).map(([k, v]) => [k, String(v)]));
    if (typeof meta["uid"] === "string") uid = meta["uid"];
    if (typeof meta["generation"] === "number") generation = meta["generation"];
  }
  const allowSpecial = isDefaultPolicy(obj);
  const spec: NodeDisruptionPolicySpec = {};
  const rawSpec = obj["spec"] ?? {};
  if (!isObj(rawSpec)) {
    c.add("spec", `Invalid value: ${quote(typeName(rawSpec))}: spec in body must be of type object`);
  } else {
    c.unknownFields(rawSpec, "spec", ["files", "units", "sshkey"]);
    const files: FileRule[] = validateRuleList(c, rawSpec["files"], "spec.files", "path", allowSpecial);
    const units: UnitRule[] = validateRuleList(c, rawSpec["units"], "spec.units", "name", allowSpecial);
    if (rawSpec["files"] !== undefined) spec.files = files;
    if (rawSpec["units"] !== undefined) spec.units = units;
    const ssh = rawSpec["sshkey"];
    if (ssh !== undefined) {
      if (!isObj(ssh)) {
        c.add("spec.sshkey", `Invalid value: ${quote(typeName(ssh))}: sshkey in body must be of type object`);
      } else {
        c.unknownFields(ssh, "spec.sshkey", ["actions"]);
        spec.sshkey = { actions: validateActions(c, ssh["actions"], "spec.sshkey.actions", allowSpecial) };
      }
    }
  }
  if (c.problems.length > 0) return { ok: false, problems: c.problems };
  const metadata: NodeDisruptionPolicy["metadata"] = { name };
  if (labels) metadata.labels = labels;
  if (uid !== undefined) metadata.uid = uid;
  if (generation !== undefined) metadata.generation = generation;
  return { ok: true, problems: [], policy: { apiVersion: POLICY_API_VERSION, kind: POLICY_KIND, metadata, spec } };
}
