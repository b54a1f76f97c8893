import { readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The repository's test data, `packages/testing/testdata/` (one home, so a clone is self-contained).
 * Resolved from this module, which works from `src/` (vitest) and `dist/` alike.
 */
export function fixturesDir(): string {
  return fileURLToPath(new URL("../testdata/", import.meta.url));
}

/** The `oc adm upgrade status` golden cases copied from openshift/oc (see the NOTICE there). */
export function ocUpgradeStatusDir(): string {
  return join(fixturesDir(), "oc-upgrade-status");
}

/** The golden case names: every `<case>-cv.yaml` in ocUpgradeStatusDir(), sorted. */
export function ocUpgradeStatusCases(): string[] {
  return readdirSync(ocUpgradeStatusDir())
    .filter((f) => f.endsWith("-cv.yaml"))
    .map((f) => f.slice(0, -"-cv.yaml".length))
    .sort();
}
