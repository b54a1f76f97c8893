// The real helm of the chart tests (.tools/helm, see helm.ts), for people without one:
// `pnpm --filter @lockstep/chart-test -s helm template lockstep ../../deploy/helm/lockstep`
// (or run `.tools/helm` directly). Arguments go to helm unchanged; so do its output and exit code.
import { spawnSync } from "node:child_process";
import { helmBin } from "./helm.js";

const r = spawnSync(helmBin(), process.argv.slice(2), { stdio: "inherit" });
if (r.error) {
  console.error(r.error.message);
  process.exit(1);
}
process.exit(r.status ?? 1);
