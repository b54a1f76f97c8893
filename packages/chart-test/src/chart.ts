// The chart rendered by the real Helm (`helm template`, see helm.ts), split into objects that keep
// the template file they came from; plus the values schema (ajv, for the tests that look at the
// schema itself), Helm's value coalescing and the chart's CRDs.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Ajv } from "ajv";
import { parse, parseAllDocuments } from "yaml";
import { helm, helmAsync, HelmError } from "./helm.js";

export type Value = string | number | boolean | null | undefined | Value[] | { [k: string]: Value };
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
  /** User values (like `-f file`), merged over the chart's values.yaml by Helm. */
  values?: Values;
  /** The API server version templates see (`--kube-version`); helm's own default otherwise. */
  kubeVersion?: string;
  /** Extra API versions `.Capabilities.APIVersions.Has` sees (`--api-versions`), e.g. `monitoring.coreos.com/v1/PrometheusRule`. */
  apiVersions?: string[];
}

export interface Rendered {
  /** Raw text per template file (`templates/x.yaml`), as `helm template` printed it. */
  files: Map<string, string>;
  manifests: Manifest[];
}

/** Helm refused the values because of values.schema.json. */
export class ValuesSchemaError extends Error {
  constructor(message: string) {
    super(message);
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

/** Validates values against the chart's values.schema.json with ajv; returns every problem. */
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

/** Runs helm with the user values in a temporary file (JSON is YAML); returns stdout. */
export function withValuesFile<T>(values: Values, run: (file: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), "lockstep-values-"));
  try {
    const file = join(dir, "values.json");
    writeFileSync(file, JSON.stringify(values));
    return run(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `helm template` of the chart; throws ValuesSchemaError for schema failures, HelmError otherwise. */
export function renderChart(chartDir: string, o: RenderOptions = {}): Rendered {
  const out = withValuesFile(o.values ?? {}, (file) => {
    try {
      const kube = o.kubeVersion === undefined ? [] : ["--kube-version", o.kubeVersion];
      const apis = (o.apiVersions ?? []).flatMap((a) => ["--api-versions", a]);
      return helm(["template", o.releaseName ?? "lockstep", chartDir, "--namespace", o.namespace ?? "lockstep", "-f", file, ...kube, ...apis]);
    } catch (err) {
      if (err instanceof HelmError && /don't meet the specifications of the schema/.test(err.stderr)) throw new ValuesSchemaError(err.stderr.trim());
      throw err;
    }
  });
  return splitTemplateOutput(out);
}

/**
 * `helm template --dry-run=server --kubeconfig <file>`: lookup reads the cluster (e.g. kube-sim in
 * this process, hence async), as `helm upgrade` would.
 */
export async function renderChartAgainst(chartDir: string, kubeconfig: string, o: RenderOptions = {}): Promise<Rendered> {
  const dir = mkdtempSync(join(tmpdir(), "lockstep-values-"));
  try {
    const file = join(dir, "values.json");
    writeFileSync(file, JSON.stringify(o.values ?? {}));
    const out = await helmAsync(["template", o.releaseName ?? "lockstep", chartDir, "--namespace", o.namespace ?? "lockstep", "-f", file, "--dry-run=server", "--kubeconfig", kubeconfig]);
    return splitTemplateOutput(out);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Splits `helm template` output at its `# Source: <chart>/<path>` comments (a template's documents
 * follow its comment; a file pulled in with .Files.Get may hold `---` separators of its own).
 */
export function splitTemplateOutput(out: string): Rendered {
  const files = new Map<string, string>();
  const manifests: Manifest[] = [];
  const marks = [...out.matchAll(/^# Source: [^/\n]+\/(.+)$/gm)];
  marks.forEach((m, i) => {
    const path = m[1]!;
    const text = out.slice(m.index + m[0].length + 1, marks[i + 1]?.index ?? out.length);
    files.set(path, (files.get(path) ?? "") + text);
    for (const doc of parseAllDocuments(text)) {
      if (doc.errors.length > 0) throw new Error(`${path}: rendered YAML is invalid: ${doc.errors[0]!.message}\n${text}`);
      const obj = doc.toJS() as Manifest | null;
      if (obj === null || obj === undefined) continue;
      manifests.push({ ...obj, source: path });
    }
  });
  return { files, manifests };
}

/** `helm lint --strict` of the chart with these values; returns helm's output (throws HelmError on failure). */
export function lintChart(chartDir: string, values: Values = {}): string {
  return withValuesFile(values, (file) => helm(["lint", "--strict", chartDir, "-f", file]));
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

/** values.yaml of the chart. */
export function chartDefaults(chartDir: string): Values {
  return (parse(readFileSync(join(chartDir, "values.yaml"), "utf8")) ?? {}) as Values;
}
