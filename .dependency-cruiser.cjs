// The layer rules of docs/DESIGN.md, checked by dependency-cruiser in `npm test`
// (test/architecture/layers.test.ts) and by hand with `npx depcruise packages services`.
/**
 * Tests may start other services as real parts (the watcher fills the state plane from kube-sim);
 * a service's test-harness.ts is the set-up its integration tests share.
 */
const TESTS = ["\\.test\\.ts$", "/test/", "/src/test-harness\\.ts$"];
/** Packages that must stay pure: no network, file, process or client library. */
const PURE = ["versions", "disruption", "insights", "lease-policy", "normalize", "skew-rules", "random"];
/**
 * The package tiers of docs/ARCHITECTURE.md, lowest first. A package imports only packages of its
 * own tier or a lower one, and a service's run-time code never imports a tool: a pure package that
 * imported @lockstep/bus, or the watcher that imported kube-sim, would pass every other rule.
 */
const TIERS = [
  { name: "contracts", packages: ["contracts"] },
  { name: "pure", packages: PURE },
  { name: "edges", packages: ["bus", "kube", "runtime", "skeleton", "reconcile", "lease-client"] },
  { name: "tools", packages: ["kube-sim", "cluster-sim", "rehearse", "launcher", "demo", "cli", "testing", "chart-test"] },
];
const alt = (names) => `(${names.join("|")})`;
/** One rule per tier: nothing above it is imported from it (tests may start real parts of any tier). */
const tierRules = TIERS.slice(0, -1).map((tier, i) => {
  const above = TIERS.slice(i + 1).flatMap((t) => t.packages);
  return {
    name: `tier-${tier.name}-imports-nothing-above`,
    severity: "error",
    comment: `A ${tier.name} package (${tier.packages.join(", ")}) imports only packages of its own tier or below, never ${above.join(", ")}.`,
    from: { path: `^packages/${alt(tier.packages)}/`, pathNot: TESTS },
    to: { path: `^packages/${alt(above)}/` },
  };
});
const IO_MODULES = [
  "^(node:)?(fs|fs/promises|net|tls|http|https|http2|dgram|child_process|cluster|worker_threads|readline)$",
  "^@nats-io/",
  "^@grpc/",
  "^@kubernetes/",
  "^pino",
];

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-unresolvable",
      severity: "error",
      comment: "An import that does not resolve (a missing dependency in package.json, a typo) fails at run time.",
      from: {},
      to: { couldNotResolve: true },
    },
    {
      name: "no-circular",
      severity: "error",
      comment:
        "Import cycles make start-up order and module state depend on which file loads first. Not even a " +
        "type-only cycle: it vanishes at run time but still ties two files into one concept (the rules now " +
        "import reads.ts, never the merged rule-inputs.ts; the skeleton's plane types live in plane.ts).",
      from: {},
      to: { circular: true },
    },
    {
      name: "services-are-independent",
      severity: "error",
      comment: "A service never imports another service; shared code lives in packages/.",
      from: { path: "^services/([^/]+)/", pathNot: TESTS },
      to: { path: "^services/([^/]+)/", pathNot: "^services/$1/" },
    },
    {
      name: "packages-never-import-services",
      severity: "error",
      comment: "Packages are the lower layer: a package that needs a service's code has the code in the wrong place.",
      from: { path: "^packages/", pathNot: TESTS },
      to: { path: "^services/" },
    },
    {
      name: "packages-only-through-exports",
      severity: "error",
      comment: "A package's files are reached only through its package.json exports, never by relative path.",
      from: { path: "^packages/([^/]+)/" },
      to: { path: "^packages/([^/]+)/src/", pathNot: "^packages/$1/" },
    },
    {
      name: "services-only-through-exports",
      severity: "error",
      comment: "A service reaches packages through their exports, never by relative path into their sources.",
      from: { path: "^services/" },
      to: { path: "^packages/[^/]+/src/" },
    },
    {
      name: "api-layer-is-the-top",
      severity: "error",
      comment:
        "A service's gRPC handlers (src/api/) sit above everything else in it: only its top-level wiring " +
        "(main.ts, index.ts, runnable.ts) imports them, never its domain folders, which the handlers call.",
      from: { path: "^services/([^/]+)/src/(?!api/)[^/]+/", pathNot: TESTS },
      to: { path: "^services/$1/src/api/" },
    },
    {
      name: "pure-packages-do-no-io",
      severity: "error",
      comment:
        `${PURE.join(", ")} are pure functions with table tests: no I/O, no clients, no logger. ` +
        "The one edge: disruption/src/defaults.ts reads the shipped default policy manifests, once, at start-up.",
      from: { path: `^packages/(${PURE.join("|")})/src/`, pathNot: ["\\.test\\.ts$", "^packages/disruption/src/defaults\\.ts$"] },
      to: { path: IO_MODULES },
    },
    ...tierRules,
    {
      name: "services-never-import-tools",
      severity: "error",
      comment: "A service's run-time code uses the edges and pure packages; simulators, launchers and test kits stay out of the image's running code.",
      from: { path: "^services/", pathNot: TESTS },
      to: { path: `^packages/${alt(TIERS[TIERS.length - 1].packages)}/` },
    },
  ],
  options: {
    // Workspace packages resolve (through pnpm's symlinks) to their built dist/: kept as nodes, so a
    // service importing another service is seen, but not followed.
    doNotFollow: { path: "(^|/)(dist|node_modules)/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.base.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      extensions: [".ts", ".js", ".mjs", ".cjs", ".json", ".d.ts"],
    },
    preserveSymlinks: false,
  },
};
// For the package.json check in test/architecture/layers.test.ts; not enumerable, so
// dependency-cruiser's own configuration schema (no unknown keys) still accepts this file.
Object.defineProperty(module.exports, "tiers", { value: TIERS, enumerable: false });
