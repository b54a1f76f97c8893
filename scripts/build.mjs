#!/usr/bin/env node
// `npm run build`: installs (pnpm included, into .tools/ when the machine lacks it), then builds with
// turbo. A fresh clone has no turbo until the install, so building alone fails there; on an
// up-to-date tree the install is a no-op of about a second. Extra arguments go to `turbo run build`.
import { fileURLToPath } from "node:url";
import { pnpm } from "./pnpm.mjs";

/** Installs from the lockfile, then builds (all packages, or those `turboArgs` select); the exit status. */
export function installAndBuild(turboArgs = [], opts = {}) {
  const install = pnpm(["install", "--frozen-lockfile", "--reporter=silent"], { ...opts, env: { CI: "true" } });
  if (install.status !== 0) return install.status ?? 1;
  const build = pnpm(["exec", "turbo", "run", "build", ...turboArgs], opts);
  return build.status ?? 1;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exit(installAndBuild(process.argv.slice(2)));
