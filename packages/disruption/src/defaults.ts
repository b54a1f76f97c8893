// The shipped upstream defaults: NodeDisruptionPolicy manifests in packages/disruption/defaults/,
// so the Helm chart and cluster-sim install exactly what the engine tests against.
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseAllDocuments } from "yaml";
import type { NodeDisruptionPolicy } from "./types.js";
import { formatProblem, validateNodeDisruptionPolicy } from "./validate.js";

/** Directory of the default manifests (resolves from both src/ and dist/). */
export const DEFAULT_POLICIES_DIR = fileURLToPath(new URL("../defaults/", import.meta.url));

/** Parses a (multi-document) YAML text into plain objects; empty documents are skipped. */
export function parsePolicyManifests(text: string, source = "<input>"): unknown[] {
  const out: unknown[] = [];
  for (const doc of parseAllDocuments(text)) {
    if (doc.errors.length > 0) throw new Error(`${source}: invalid YAML: ${doc.errors[0]!.message}`);
    const value: unknown = doc.toJS();
    if (value !== null && value !== undefined) out.push(value);
  }
  return out;
}

/** Reads every `*.yaml` manifest in `dir`, in file-name order. */
export async function loadPolicyManifests(dir: string = DEFAULT_POLICIES_DIR): Promise<unknown[]> {
  const names = (await readdir(dir)).filter((n) => n.endsWith(".yaml") || n.endsWith(".yml")).sort();
  const out: unknown[] = [];
  for (const n of names) out.push(...parsePolicyManifests(await readFile(join(dir, n), "utf8"), n));
  return out;
}

/** The shipped defaults, validated; a broken default manifest is a packaging bug, so this throws. */
export async function loadDefaultPolicies(dir: string = DEFAULT_POLICIES_DIR): Promise<NodeDisruptionPolicy[]> {
  return (await loadPolicyManifests(dir)).map((m) => {
    const v = validateNodeDisruptionPolicy(m);
    if (!v.ok) throw new Error(`invalid default NodeDisruptionPolicy: ${v.problems.map(formatProblem).join("; ")}`);
    return v.policy;
  });
}
