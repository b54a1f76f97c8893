// The layer rules of docs/DESIGN.md, checked by dependency-cruiser in `npm test`
// (test/architecture/layers.test.ts) and by hand with `npx depcruise packages services`.
/** Packages that must stay pure: no network, file, process or client library. */
const PURE = ["versions", "disruption", "insights", "lease-policy", "normalize", "skew-rules"];
/**
 * Tests may start other services as real parts (the watcher fills the state plane from kube-sim);
 * a service's test-harness.ts is the set-up its integration tests share.
 */
const TESTS = ["\\.test\\.ts$", "/test/", "/src/test-harness\\.ts$"];
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
        "Import cycles make start-up order and module state depend on which file loads first. Cycles made " +
        "only of type imports are allowed: they vanish at run time, and a rule's input type derived from the " +
        "rules' own declarations (insights' and skew's rule-inputs.ts) is one by design.",
      from: {},
      to: { circular: true, viaOnly: { dependencyTypesNot: ["type-only"] } },
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
        "versions, disruption and insights are pure functions with table tests: no I/O, no clients, no logger. " +
        "The one edge: disruption/src/defaults.ts reads the shipped default policy manifests, once, at start-up.",
      from: { path: `^packages/(${PURE.join("|")})/src/`, pathNot: ["\\.test\\.ts$", "^packages/disruption/src/defaults\\.ts$"] },
      to: { path: IO_MODULES },
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
