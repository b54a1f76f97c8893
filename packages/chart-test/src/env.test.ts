// The environment the chart gives each service is a valid configuration for that service: parsed
// by the service's own config schema (services/<name>/src/config.ts), and every variable the chart
// sets is one the service reads.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { chartDir, servicesDir } from "./paths.js";
import { renderChart, type Values } from "./chart.js";

type Schema = { safeParse(v: unknown): { success: boolean; error?: { issues: Array<{ path: unknown[]; message: string }> } }; shape?: Record<string, unknown> };

async function configSchema(service: string): Promise<Schema> {
  const mod = (await import(pathToFileURL(join(servicesDir, service, "src/config.ts")).href)) as Record<string, unknown>;
  const found = Object.entries(mod).filter(([k, v]) => k.endsWith("ConfigSchema") && typeof (v as Schema)?.safeParse === "function");
  if (found.length !== 1) throw new Error(`services/${service}/src/config.ts exports ${found.length} *ConfigSchema values, expected 1`);
  return found[0]![1] as Schema;
}

/** The container's environment as the pod would see it (secrets and field refs stand in). */
function podEnv(env: Array<{ name: string; value?: string; valueFrom?: { secretKeyRef?: unknown; fieldRef?: unknown } }>): Record<string, string> {
  return Object.fromEntries(env.map((e) => [e.name, e.value ?? (e.valueFrom?.secretKeyRef ? "secret-from-kubernetes" : "lockstep-pod-0")]));
}

/** Variables read by node itself rather than by the service's config. */
const NODE_RUNTIME_VARS = new Set(["NODE_OPTIONS", "MALLOC_ARENA_MAX"]);



const maxValues = parse(readFileSync(join(chartDir, "ci/max-values.yaml"), "utf8")) as Values;

describe.each([
  ["default values", {} as Values],
  ["ci/max-values.yaml", maxValues],
])("environment rendered with %s", (_name, values) => {
  const deployments = renderChart(chartDir, { values }).manifests.filter((m) => m.kind === "Deployment");

  it.each(deployments.map((d) => [d.metadata.labels!["app.kubernetes.io/component"]!, d] as const))("is a valid %s configuration", async (service, d) => {
    const schema = await configSchema(service);
    const env = podEnv((d.spec as any).template.spec.containers[0].env);
    const result = schema.safeParse(env);
    expect(result.success ? [] : result.error!.issues.map((i) => `${i.path.join(".")}: ${i.message}`)).toEqual([]);
    expect(schema.shape, "config schema exposes its variables").toBeDefined();
    expect(Object.keys(env).filter((k) => !(k in schema.shape!) && !NODE_RUNTIME_VARS.has(k))).toEqual([]);
  });
});
