// Normalising a raw MachineConfig (Ignition v3 in spec.config) into the state-plane shape
// lockstep.state.v1.MachineConfigState, so raw objects and state snapshots go through one engine.
// The watcher should use this function too: digests compare equal only if computed the same way.
import { createHash } from "node:crypto";
import { gunzipSync } from "node:zlib";
import type { MachineConfigState } from "@lockstep/contracts";
import { REGISTRIES_CONF_PATH } from "./registries.js";

/**
 * MachineConfigState plus what the engine may additionally know about a raw object.
 * `passwdDigest` covers the whole Ignition passwd section (password hashes, groups), which the
 * state-plane shape does not carry; it is compared only when both sides have it.
 */
export type NormalizedMachineConfig = MachineConfigState & { passwdDigest?: string };

export class MachineConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MachineConfigError";
  }
}

/** Files whose decoded contents are kept, because a rule inspects them (§2.9). */
export const CONTENT_PATHS: ReadonlySet<string> = new Set([REGISTRIES_CONF_PATH]);

export const sha256Hex = (data: string | Uint8Array): string => createHash("sha256").update(data).digest("hex");

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** Decodes an RFC 2397 data URL (base64 or percent-encoded). */
export function decodeDataUrl(url: string): Buffer {
  if (!url.startsWith("data:")) throw new MachineConfigError(`not a data URL: ${url.slice(0, 40)}`);
  const comma = url.indexOf(",");
  if (comma < 0) throw new MachineConfigError("data URL has no \",\"");
  const meta = url.slice(5, comma);
  const data = url.slice(comma + 1);
  if (meta.split(";").includes("base64")) {
    const clean = data.replace(/%([0-9A-Fa-f]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16))).replace(/\s/g, "");
    if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(clean)) throw new MachineConfigError("data URL has invalid base64 data");
    return Buffer.from(clean, "base64");
  }
  // Percent-decode bytewise so non-UTF-8 contents survive.
  const bytes: number[] = [];
  for (let i = 0; i < data.length; i++) {
    const c = data[i]!;
    if (c === "%") {
      const h = data.slice(i + 1, i + 3);
      if (!/^[0-9A-Fa-f]{2}$/.test(h)) throw new MachineConfigError(`data URL has an invalid percent-escape at offset ${i}`);
      bytes.push(parseInt(h, 16));
      i += 2;
    } else {
      for (const b of Buffer.from(c, "utf8")) bytes.push(b);
    }
  }
  return Buffer.from(bytes);
}

function fileContents(path: string, contents: unknown): Buffer | { url: string } {
  if (contents === undefined || contents === null) return Buffer.alloc(0);
  if (!isObj(contents)) throw new MachineConfigError(`file ${path}: contents must be an object`);
  const source = contents["source"];
  if (source === undefined || source === null || source === "") return Buffer.alloc(0);
  if (typeof source !== "string") throw new MachineConfigError(`file ${path}: contents.source must be a string`);
  if (!source.startsWith("data:")) return { url: source };
  let data: Buffer;
  try {
    data = decodeDataUrl(source);
  } catch (e) {
    throw new MachineConfigError(`file ${path}: ${(e as Error).message}`);
  }
  const compression = contents["compression"];
  if (compression === "gzip") {
    try {
      return gunzipSync(data);
    } catch {
      throw new MachineConfigError(`file ${path}: contents are not valid gzip`);
    }
  }
  if (compression !== undefined && compression !== null && compression !== "")
    throw new MachineConfigError(`file ${path}: unsupported compression ${JSON.stringify(compression)}`);
  return data;
}

function strings(v: unknown, what: string): string[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || !v.every((s) => typeof s === "string")) throw new MachineConfigError(`${what} must be a list of strings`);
  return v as string[];
}

function list(v: unknown, what: string): Obj[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || !v.every(isObj)) throw new MachineConfigError(`${what} must be a list of objects`);
  return v as Obj[];
}

/** Canonical JSON (sorted keys) for digesting structured sections. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (isObj(v))
    return `{${Object.keys(v)
      .sort()
      .filter((k) => v[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`)
      .join(",")}}`;
  return JSON.stringify(v) ?? "null";
}

/** spec.config as stored: an Ignition object, or the same as a JSON string, parsed here. */
export function ignitionConfig(config: unknown): unknown {
  if (typeof config !== "string") return config;
  try {
    return JSON.parse(config);
  } catch {
    throw new MachineConfigError("spec.config is not valid JSON");
  }
}

/**
 * Normalises a raw MachineConfig object (machineconfiguration.openshift.io/v1, Ignition v3 in
 * spec.config). Throws MachineConfigError with a clear message on input it cannot read.
 */
export function normalizeMachineConfig(raw: unknown): NormalizedMachineConfig {
  if (!isObj(raw)) throw new MachineConfigError("MachineConfig must be an object");
  const meta = isObj(raw["metadata"]) ? raw["metadata"] : {};
  const spec = raw["spec"] === undefined ? {} : raw["spec"];
  if (!isObj(spec)) throw new MachineConfigError("MachineConfig spec must be an object");
  const config = ignitionConfig(spec["config"] ?? {});
  if (!isObj(config)) throw new MachineConfigError("spec.config must be an object");
  const storage = isObj(config["storage"]) ? config["storage"] : {};
  const systemd = isObj(config["systemd"]) ? config["systemd"] : {};
  const passwd = config["passwd"];
  const ignition = isObj(config["ignition"]) ? config["ignition"] : {};

  const files = list(storage["files"], "spec.config.storage.files").map((f, i) => {
    const path = f["path"];
    if (typeof path !== "string" || path === "") throw new MachineConfigError(`spec.config.storage.files[${i}].path is required`);
    const decoded = fileContents(path, f["contents"]);
    const isUrl = !Buffer.isBuffer(decoded);
    const mode = f["mode"];
    if (mode !== undefined && mode !== null && typeof mode !== "number") throw new MachineConfigError(`file ${path}: mode must be a number`);
    return {
      path,
      mode: typeof mode === "number" ? mode : 0,
      modePresent: typeof mode === "number",
      // A remote source cannot be fetched here; its URL stands in for the contents.
      contentsDigest: isUrl ? sha256Hex(`source:${decoded.url}`) : sha256Hex(decoded),
      overwrite: f["overwrite"] === true,
      contents: !isUrl && CONTENT_PATHS.has(path) ? decoded.toString("utf8") : "",
    };
  });

  const units = list(systemd["units"], "spec.config.systemd.units").map((u, i) => {
    const name = u["name"];
    if (typeof name !== "string" || name === "") throw new MachineConfigError(`spec.config.systemd.units[${i}].name is required`);
    const contents = u["contents"];
    return {
      name,
      contentsDigest: typeof contents === "string" ? sha256Hex(contents) : "",
      enabled: u["enabled"] === true,
      enabledPresent: typeof u["enabled"] === "boolean",
      mask: u["mask"] === true,
      dropins: list(u["dropins"], `unit ${name} dropins`).map((d) => ({
        name: String(d["name"] ?? ""),
        contentsDigest: typeof d["contents"] === "string" ? sha256Hex(d["contents"]) : "",
      })),
    };
  });

  const users = isObj(passwd) ? list(passwd["users"], "spec.config.passwd.users") : [];
  const sshUsers = users.map((u) => ({
    name: String(u["name"] ?? ""),
    sshAuthorizedKeys: strings(u["sshAuthorizedKeys"], `user ${String(u["name"])} sshAuthorizedKeys`),
  }));

  const labels = isObj(meta["labels"]) ? Object.fromEntries(Object.entries(meta["labels"]).map(([k, v]) => [k, String(v)])) : {};
  const annotations = isObj(meta["annotations"]) ? meta["annotations"] : {};
  const owner = list(meta["ownerReferences"], "metadata.ownerReferences").find((o) => o["kind"] === "MachineConfigPool");
  const fips = spec["fips"];
  if (fips !== undefined && fips !== null && typeof fips !== "boolean") throw new MachineConfigError("spec.fips must be a boolean");
  const osImageURL = spec["osImageURL"] ?? "";
  const kernelType = spec["kernelType"] ?? "";
  if (typeof osImageURL !== "string") throw new MachineConfigError("spec.osImageURL must be a string");
  if (typeof kernelType !== "string") throw new MachineConfigError("spec.kernelType must be a string");

  return {
    name: typeof meta["name"] === "string" ? meta["name"] : "",
    uid: typeof meta["uid"] === "string" ? meta["uid"] : "",
    labels,
    releaseImageVersion: String(annotations["machineconfiguration.openshift.io/release-image-version"] ?? ""),
    generatedByControllerVersion: String(annotations["machineconfiguration.openshift.io/generated-by-controller-version"] ?? ""),
    osImageUrl: osImageURL,
    kernelArguments: strings(spec["kernelArguments"], "spec.kernelArguments"),
    kernelType,
    fips: fips === true,
    extensions: strings(spec["extensions"], "spec.extensions"),
    files,
    units,
    sshUsers,
    ignitionVersion: typeof ignition["version"] === "string" ? ignition["version"] : "",
    ownerPool: owner && typeof owner["name"] === "string" ? owner["name"] : "",
    passwdDigest: sha256Hex(canonical(isObj(passwd) ? passwd : {})),
  };
}

/** True for a state-plane snapshot (as opposed to a raw Kubernetes object). */
export function isMachineConfigState(v: unknown): v is MachineConfigState {
  return isObj(v) && !("spec" in v) && !("apiVersion" in v) && Array.isArray(v["files"]) && Array.isArray(v["units"]);
}

/** Accepts either a raw MachineConfig or a MachineConfigState snapshot. */
export function toMachineConfigState(v: unknown): NormalizedMachineConfig {
  return isMachineConfigState(v) ? v : normalizeMachineConfig(v);
}
