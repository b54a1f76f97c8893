// Loading objects from YAML/JSON (single objects, multi-document YAML, `List`s) and dumping the store.
import { readFile, writeFile } from "node:fs/promises";
import { parseAllDocuments, stringify } from "yaml";
import { isPlainObject } from "./json.js";
import type { Store } from "./store.js";
import type { KubeObject } from "./types.js";

/** Every object in a YAML or JSON text, with `List`s flattened (typed lists give their items a kind). */
export function parseObjects(text: string, source = "input"): KubeObject[] {
  const out: KubeObject[] = [];
  const docs = parseAllDocuments(text);
  for (const doc of Array.isArray(docs) ? docs : [docs]) {
    if (doc.errors.length) throw new Error(`${source}: ${doc.errors[0]!.message}`);
    const v = doc.toJS({ maxAliasCount: -1 }) as unknown;
    if (v === null || v === undefined) continue;
    flatten(v, source, out);
  }
  return out;
}

function flatten(v: unknown, source: string, out: KubeObject[]): void {
  if (!isPlainObject(v)) throw new Error(`${source}: expected an object, got ${Array.isArray(v) ? "an array" : typeof v}`);
  const kind = typeof v.kind === "string" ? v.kind : "";
  if (kind.endsWith("List") && Array.isArray(v.items)) {
    const itemKind = kind === "List" ? undefined : kind.slice(0, -4);
    for (const item of v.items) {
      if (!isPlainObject(item)) throw new Error(`${source}: list item is not an object`);
      if (!item.kind && itemKind) item.kind = itemKind;
      if (!item.apiVersion && v.apiVersion) item.apiVersion = v.apiVersion;
      flatten(item, source, out);
    }
    return;
  }
  if (!v.apiVersion || !kind) throw new Error(`${source}: object without apiVersion/kind (${JSON.stringify(v.metadata?.name ?? null)})`);
  out.push(v as KubeObject);
}

const ORDER = (o: KubeObject) => (o.kind === "CustomResourceDefinition" ? 0 : o.kind === "Namespace" ? 1 : 2);

/** Seeds objects (CRDs first, then namespaces, then the rest); returns how many were stored. */
export function seedObjects(store: Store, objects: KubeObject[]): number {
  const sorted = [...objects].sort((a, b) => ORDER(a) - ORDER(b));
  for (const o of sorted) store.seed(o);
  return sorted.length;
}

export async function loadFiles(store: Store, paths: string[]): Promise<number> {
  let n = 0;
  const all: KubeObject[] = [];
  for (const p of paths) all.push(...parseObjects(await readFile(p, "utf8"), p));
  n += seedObjects(store, all);
  return n;
}

/** The whole store as a `List` (apiVersion v1), YAML for .yaml/.yml paths, JSON otherwise. */
export function dumpList(store: Store): KubeObject {
  return { apiVersion: "v1", kind: "List", metadata: { resourceVersion: String(store.resourceVersion) }, items: store.allObjects() };
}

export async function dumpToFile(store: Store, path: string): Promise<void> {
  const list = dumpList(store);
  const text = /\.ya?ml$/i.test(path) ? stringify(list) : `${JSON.stringify(list, null, 2)}\n`;
  await writeFile(path, text);
}
