// `helm template` for machines without Helm, with the chart-test renderer:
//   tsx src/cli.ts [-f values.yaml]... [--namespace NS] [--release NAME] [--show-only templates/x.yaml]
import { readFileSync } from "node:fs";
import { parse } from "yaml";
import { chartDir } from "./paths.js";
import { coalesce, renderChart, type Values } from "./render/chart.js";

const args = process.argv.slice(2);
let values: Values = {};
let namespace = "lockstep";
let release = "lockstep";
let only: string | undefined;
for (let i = 0; i < args.length; i++) {
  const a = args[i];
  const next = () => args[++i] ?? (console.error(`${a} needs a value`), process.exit(2));
  if (a === "-f" || a === "--values") values = coalesce(values, (parse(readFileSync(next(), "utf8")) ?? {}) as Values);
  else if (a === "-n" || a === "--namespace") namespace = next();
  else if (a === "--release") release = next();
  else if (a === "--show-only") only = next();
  else {
    console.error(`unknown argument ${a}`);
    process.exit(2);
  }
}
try {
  const { files } = renderChart(chartDir, { values, namespace, releaseName: release });
  for (const [path, text] of files) if (!only || path === only) if (text.trim()) process.stdout.write(`# Source: lockstep/${path}${text}\n`);
} catch (err) {
  console.error((err as Error).message);
  process.exit(1);
}
