// Decoding `spec.template.spec.providerSpec.value` (carried as JSON text on MachineSetState).

import { isJsonObject, type JsonObject } from "./merge-patch.js";

export type ProviderSpecResult = { ok: true; spec: JsonObject } | { ok: false; message: string };

export function parseProviderSpec(json: string): ProviderSpecResult {
  if (json.trim() === "") return { ok: false, message: "providerSpec is empty" };
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (e) {
    return { ok: false, message: `providerSpec is not valid JSON: ${e instanceof Error ? e.message : String(e)}` };
  }
  if (!isJsonObject(value)) return { ok: false, message: "providerSpec must be a JSON object" };
  return { ok: true, spec: value };
}

/** A nested object field; undefined when absent, a message when present but not an object. */
export function objectField(parent: JsonObject, key: string, path: string): JsonObject | undefined | { error: string } {
  const v = parent[key];
  if (v === undefined || v === null) return undefined;
  return isJsonObject(v) ? v : { error: `providerSpec ${path} must be an object` };
}

/** A string field; "" when absent, a message when present but not a string. */
export function stringField(parent: JsonObject, key: string, path: string): string | { error: string } {
  const v = parent[key];
  if (v === undefined || v === null) return "";
  return typeof v === "string" ? v : { error: `providerSpec ${path} must be a string` };
}
