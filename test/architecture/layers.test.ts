// The layer rules of docs/DESIGN.md, checked on every `npm test`: dependency-cruiser walks the
// imports of every package and service (rules in .dependency-cruiser.cjs: no cycles, nothing
// unresolvable, no service importing another, packages never importing services, packages reached
// only through their exports, pure packages doing no I/O, each package tier importing nothing above
// it), and the workspace's package.json graph
// is checked for the same direction at the package level, where file imports stop at dist/.
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { cruise, type ICruiseResult } from "dependency-cruiser";
import { describe, expect, it } from "vitest";

/**
 * Packages that start the services as processes (`lockstep up`, the demo): they depend on them so
 * the build orders them first, and never import them (the import rules above see to that).
 */
const LAUNCHERS = new Set(["packages/cli", "packages/demo"]);

const root = fileURLToPath(new URL("../..", import.meta.url));
const require = createRequire(import.meta.url);

interface Workspace {
  name: string;
  dir: string;
  dependencies: string[];
}

function workspaces(): Workspace[] {
  return ["packages", "services"].flatMap((group) =>
    readdirSync(join(root, group)).map((d) => {
      const pkg = JSON.parse(readFileSync(join(root, group, d, "package.json"), "utf8"));
      return { name: pkg.name as string, dir: `${group}/${d}`, dependencies: Object.keys(pkg.dependencies ?? {}) };
    }),
  );
}

/** A cycle in the package graph, as a list of names, or undefined. */
function findCycle(ws: Workspace[]): string[] | undefined {
  const byName = new Map(ws.map((w) => [w.name, w]));
  const state = new Map<string, "open" | "done">();
  const path: string[] = [];
  const visit = (name: string): string[] | undefined => {
    if (state.get(name) === "done") return undefined;
    if (state.get(name) === "open") return [...path.slice(path.indexOf(name)), name];
    state.set(name, "open");
    path.push(name);
    for (const d of byName.get(name)?.dependencies ?? []) {
      if (!byName.has(d)) continue;
      const c = visit(d);
      if (c) return c;
    }
    path.pop();
    state.set(name, "done");
    return undefined;
  };
  for (const w of ws) {
    const c = visit(w.name);
    if (c) return c;
  }
  return undefined;
}

interface Tier {
  name: string;
  packages: string[];
}

/** Dependencies of a package on a package of a higher tier, as sentences. */
function tierViolations(ws: Workspace[], tiers: Tier[]): string[] {
  const rank = new Map<string, number>(tiers.flatMap((t, i) => t.packages.map((p) => [`@lockstep/${p}`, i] as const)));
  return ws.flatMap((w) => {
    const mine = rank.get(w.name);
    if (mine === undefined) return [];
    return w.dependencies
      .filter((d) => (rank.get(d) ?? -1) > mine)
      .map((d) => `${w.dir} (${tiers[mine]!.name}) depends on ${d} (${tiers[rank.get(d)!]!.name})`);
  });
}

describe("the layers", () => {
  it("hold for every import (dependency-cruiser, .dependency-cruiser.cjs)", async () => {
    const config = require(join(root, ".dependency-cruiser.cjs"));
    const cwd = process.cwd();
    process.chdir(root);
    let result: ICruiseResult;
    try {
      result = (await cruise(["packages", "services"], { ...config.options, ruleSet: { forbidden: config.forbidden }, validate: true })).output as ICruiseResult;
    } finally {
      process.chdir(cwd);
    }
    const violations = result.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}${v.cycle ? ` (${v.cycle.map((c) => c.name).join(" → ")})` : ""}`);
    expect(violations).toEqual([]);
    // It really walked the sources (a wrong working directory finds nothing and reports no violation).
    expect(result.summary.totalCruised).toBeGreaterThan(300);
  }, 120_000);

  it("hold for the package graph: no cycle, no package depending on a service, no service on another", () => {
    const ws = workspaces();
    expect(ws.length).toBeGreaterThan(15);
    expect(findCycle(ws)).toBeUndefined();
    const services = new Set(ws.filter((w) => w.dir.startsWith("services/")).map((w) => w.name));
    const wrong = ws
      .filter((w) => !LAUNCHERS.has(w.dir))
      .flatMap((w) => w.dependencies.filter((d) => services.has(d) && d !== w.name).map((d) => `${w.dir} depends on ${d}`));
    expect(wrong).toEqual([]);
  });

  it("hold for the package tiers: no package depends on a package of a higher tier", () => {
    const { tiers } = require(join(root, ".dependency-cruiser.cjs")) as { tiers: Tier[] };
    const ws = workspaces().filter((w) => w.dir.startsWith("packages/"));
    // Every package has a tier: a new one must be placed before it can be checked.
    const placed = new Set(tiers.flatMap((t) => t.packages));
    expect(ws.map((w) => w.dir.slice("packages/".length)).filter((d) => !placed.has(d))).toEqual([]);
    expect(tierViolations(ws, tiers)).toEqual([]);
  });

  it("finds a tier violation when there is one (the checker itself)", () => {
    const w = (name: string, ...dependencies: string[]): Workspace => ({ name: `@lockstep/${name}`, dir: `packages/${name}`, dependencies: dependencies.map((d) => `@lockstep/${d}`) });
    const tiers: Tier[] = [{ name: "pure", packages: ["versions"] }, { name: "edges", packages: ["bus"] }];
    expect(tierViolations([w("versions", "bus"), w("bus", "versions")], tiers)).toEqual(["packages/versions (pure) depends on @lockstep/bus (edges)"]);
  });

  it("finds a cycle when there is one (the checker itself)", () => {
    const w = (name: string, ...dependencies: string[]): Workspace => ({ name, dir: `packages/${name}`, dependencies });
    expect(findCycle([w("a", "b"), w("b", "c"), w("c", "a")])).toEqual(["a", "b", "c", "a"]);
    expect(findCycle([w("a", "b"), w("b"), w("c", "a", "b")])).toBeUndefined();
  });
});
