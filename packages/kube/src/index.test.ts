// The entry point must not load client-node at run time (its module graph costs each process
// about 70 MiB): only type imports and deep imports of client-node's small config modules, and the
// on-demand `await import(...)` fallback, are allowed in the files it reaches.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";

function reachable(entry: string): string[] {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(file, "utf8");
    for (const m of text.matchAll(/^(?:import|export)\s+(?!type\b)[^;]*?from\s+"(\.[^"]+)"/gm)) visit(join(dirname(file), m[1]!.replace(/\.js$/, ".ts")));
  };
  visit(entry);
  return [...seen];
}

describe("@lockstep/kube", () => {
  const files = reachable(join(import.meta.dirname, "index.ts"));

  it("reaches the modules it re-exports", () => {
    expect(files.map((f) => f.slice(import.meta.dirname.length + 1)).sort()).toEqual(["access.ts", "custom-objects.ts", "discovery.ts", "errors.ts", "event-fold.ts", "event-recorder.ts", "http.ts", "index.ts", "informer.ts", "leader-election.ts", "resources.ts"]);
  });

  it("imports client-node only for types, its config_types module, or on demand", () => {
    const offending = files.flatMap((f) =>
      [...readFileSync(f, "utf8").matchAll(/^(?:import|export)\s+(?!type\b)[^;]*?from\s+"(@kubernetes\/client-node[^"]*)"/gm)]
        .map((m) => m[1]!)
        .filter((spec) => spec !== "@kubernetes/client-node/dist/config_types.js")
        .map((spec) => `${f}: ${spec}`),
    );
    expect(offending).toEqual([]);
  });

  it("is the entry every service's run-time code uses (client-node's KubeConfig is for tests and tools)", () => {
    const services = join(import.meta.dirname, "../../../services");
    const offending = readdirSync(services).flatMap((service) =>
      (readdirSync(join(services, service, "src"), { recursive: true }) as string[])
        // test-harness.ts: a service's shared integration-test set-up, not run-time code.
        .filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts") && f !== "test-harness.ts")
        .filter((f) => /from\s+"@lockstep\/kube\/|import\("@lockstep\/kube\//.test(readFileSync(join(services, service, "src", f), "utf8")))
        .map((f) => `${service}/src/${f}`),
    );
    expect(offending).toEqual([]);
  });
});
