// The coordinator process must not load client-node at run time (its module graph costs about
// 70 MiB per process): from main.ts, through this service's modules and the workspace packages they
// import, client-node may appear only in type imports, as its small config_types module, or behind
// an on-demand `await import(...)` (loadKubeAccess's fallback for YAML kubeconfigs and exec plugins).
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";

const REPO = join(import.meta.dirname, "../../..");
const STATIC_IMPORT = /^(?:import|export)\s+(?!type\b)[^;]*?from\s+"([^"]+)"/gm;
const ALLOWED = new Set(["@kubernetes/client-node/dist/config_types.js"]);

/** The source file of a workspace package's entry point (`@lockstep/kube/client-node` → packages/kube/src/client-node.ts). */
function workspaceSource(spec: string): string | undefined {
  const [, name, sub] = /^@lockstep\/([^/]+)(?:\/(.+))?$/.exec(spec) ?? [];
  if (!name) return undefined;
  const file = join(REPO, "packages", name, "src", `${sub ?? "index"}.ts`);
  return existsSync(file) ? file : undefined;
}

/** Every static runtime import of a package outside the workspace, reachable from `entry`, by the file that makes it. */
function externalImports(entry: string): Array<{ file: string; spec: string }> {
  const seen = new Set<string>();
  const out: Array<{ file: string; spec: string }> = [];
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const m of readFileSync(file, "utf8").matchAll(STATIC_IMPORT)) {
      const spec = m[1]!;
      if (spec.startsWith(".")) visit(join(dirname(file), spec.replace(/\.js$/, ".ts")));
      else if (spec.startsWith("@lockstep/")) {
        const src = workspaceSource(spec);
        if (src) visit(src);
        else out.push({ file, spec });
      } else out.push({ file, spec });
    }
  };
  visit(entry);
  return out;
}

describe("the lease-coordinator process", () => {
  const imports = externalImports(join(import.meta.dirname, "main.ts"));

  it("reaches its workspace packages through their sources", () => {
    expect(imports.filter((i) => i.spec.startsWith("@lockstep/"))).toEqual([]);
    expect(imports.map((i) => i.spec)).toContain("@grpc/grpc-js");
  });

  it("loads no client-node code at run time", () => {
    const offending = imports
      .filter((i) => i.spec.startsWith("@kubernetes/client-node") && !ALLOWED.has(i.spec))
      .map((i) => `${i.file.slice(REPO.length + 1)}: ${i.spec}`);
    expect(offending).toEqual([]);
  });
});
