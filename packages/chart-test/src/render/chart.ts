// Helm's chart loading and rendering steps, for the chart's templates: values.yaml coalesced with
// user values (maps merge, lists and scalars replace, null deletes), validation of the result
// against values.schema.json, the built-in objects (.Values, .Release, .Chart, .Files, .Template),
// every templates/*.yaml rendered with the defines of all templates/_*.tpl, and the output split into
// YAML documents (empty ones dropped, as Helm drops them).
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { Ajv } from "ajv";
import { parse, parseAllDocuments } from "yaml";
import { helmFunctions } from "./functions.js";
import { createEngine, parseTemplate, type Value } from "./template.js";

export type Values = Record<string, Value>;

export interface Manifest {
  /** Template file that produced it, e.g. `templates/deployment.yaml`. */
  source: string;
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [k: string]: unknown;
}

export interface RenderOptions {
  releaseName?: string;
  namespace?: string;
  /** User values (like `-f file`), merged over the chart's values.yaml. */
  values?: Values;
}

export interface Rendered {
  values: Values;
  /** Raw text per template file (after rendering). */
  files: Map<string, string>;
  manifests: Manifest[];
}

export class ValuesSchemaError extends Error {
  constructor(readonly errors: string[]) {
    super(`values don't meet the specifications of the schema(s) in the following chart(s):\n${errors.join("\n")}`);
    this.name = "ValuesSchemaError";
  }
}

const isMap = (v: Value): v is Values => v !== null && typeof v === "object" && !Array.isArray(v);

/** Helm's coalescing: user values win; maps merge recursively; a user `null` removes the key. */
export function coalesce(defaults: Values, user: Values): Values {
  const out: Values = structuredClone(defaults);
  for (const [k, v] of Object.entries(user)) {
    if (v === null) delete out[k];
    else if (isMap(v) && isMap(out[k])) out[k] = coalesce(out[k] as Values, v);
    else out[k] = structuredClone(v);
  }
  return out;
}

function walk(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((f) => {
      const p = join(dir, f);
      return statSync(p).isDirectory() ? walk(p) : [p];
    });
}

/** Validates values against the chart's values.schema.json; returns every problem. */
export function schemaErrors(chartDir: string, values: Values): string[] {
  const schema = JSON.parse(readFileSync(join(chartDir, "values.schema.json"), "utf8")) as object;
  const ajv = new Ajv({ allErrors: true, strict: false });
  const validate = ajv.compile(schema);
  if (validate(values)) return [];
  return (validate.errors ?? []).map((e) => {
    const extra = e.keyword === "additionalProperties" ? `: ${(e.params as { additionalProperty: string }).additionalProperty}` : "";
    return `- ${e.instancePath || "(root)"}: ${e.message}${extra}`;
  });
}

function globToRegExp(glob: string): RegExp {
  const esc = glob.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, "[^/]*").replace(/\?/g, "[^/]");
  return new RegExp(`^${esc}$`);
}

export function renderChart(chartDir: string, o: RenderOptions = {}): Rendered {
  const chart = parse(readFileSync(join(chartDir, "Chart.yaml"), "utf8")) as Values;
  const defaults = (parse(readFileSync(join(chartDir, "values.yaml"), "utf8")) ?? {}) as Values;
  const values = coalesce(defaults, o.values ?? {});
  const problems = schemaErrors(chartDir, values);
  if (problems.length > 0) throw new ValuesSchemaError(problems);

  const all = walk(chartDir).map((p) => relative(chartDir, p).split("\\").join("/"));
  const fileNames = all.filter((p) => !p.startsWith("templates/") && !["Chart.yaml", "values.yaml", "values.schema.json"].includes(p));
  const Files = {
    Get: (path: Value) => (fileNames.includes(String(path)) ? readFileSync(join(chartDir, String(path)), "utf8") : ""),
    Glob: (pattern: Value) => {
      const re = globToRegExp(String(pattern));
      return Object.fromEntries(fileNames.filter((p) => re.test(p)).map((p) => [p, readFileSync(join(chartDir, p), "utf8")]));
    },
  };
  const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
  const Chart = Object.fromEntries(Object.entries(chart).map(([k, v]) => [cap(k), v]));
  const Release = { Name: o.releaseName ?? "lockstep", Namespace: o.namespace ?? "lockstep", Service: "Helm", IsInstall: true, IsUpgrade: false, Revision: 1 };

  const templates = all.filter((p) => p.startsWith("templates/") && /\.(ya?ml|tpl)$/.test(p));
  const parsed = templates.map((p) => ({ path: p, ...parseTemplate(readFileSync(join(chartDir, p), "utf8"), p) }));
  const defines = new Map(parsed.flatMap((t) => [...t.defines]));
  const engine = createEngine(defines, helmFunctions);

  const files = new Map<string, string>();
  const manifests: Manifest[] = [];
  for (const t of parsed) {
    const name = t.path.split("/").pop()!;
    if (name.startsWith("_")) continue; // partials only hold defines
    const data = { Values: values, Release, Chart, Files, Capabilities: {}, Template: { Name: `${chart.name}/${t.path}`, BasePath: `${chart.name}/templates` } };
    const text = engine.render(t.main, data);
    files.set(t.path, text);
    for (const doc of parseAllDocuments(text)) {
      if (doc.errors.length > 0) throw new Error(`${t.path}: rendered YAML is invalid: ${doc.errors[0]!.message}\n${text}`);
      const obj = doc.toJS() as Manifest | null;
      if (obj === null || obj === undefined) continue;
      manifests.push({ ...obj, source: t.path });
    }
  }
  return { values, files, manifests };
}

/** The chart's CRDs (crds/*.yaml, installed by Helm before the templates, never templated). */
export function chartCrds(chartDir: string): Manifest[] {
  return readdirSync(join(chartDir, "crds"))
    .filter((f) => /\.ya?ml$/.test(f))
    .sort()
    .flatMap((f) =>
      parseAllDocuments(readFileSync(join(chartDir, "crds", f), "utf8"))
        .map((d) => d.toJS() as Manifest | null)
        .filter((m): m is Manifest => !!m)
        .map((m) => ({ ...m, source: `crds/${f}` })),
    );
}
