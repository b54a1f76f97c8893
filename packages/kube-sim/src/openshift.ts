// The CRD manifests shipped with kube-sim (../crds): OpenShift types with minimal schemas and
// Lockstep's own lockstep.io kinds (reused by the Helm chart).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseObjects } from "./load.js";
import type { Store } from "./store.js";
import type { KubeObject } from "./types.js";

/** Absolute path of the package's crds/ folder (crds/openshift, crds/lockstep). */
export const crdsDir = fileURLToPath(new URL("../crds/", import.meta.url));
export const lockstepCrdsDir = join(crdsDir, "lockstep");
export const openshiftCrdsDir = join(crdsDir, "openshift");
/**
 * medik8s' kinds (NodeMaintenance, SelfNodeRemediation, FenceAgentsRemediation), minimal schemas:
 * in no set, because on a real cluster they are present only where those operators are installed;
 * tests apply them (medik8sCrdManifests) to show the CRD arriving late.
 */
export const medik8sCrdsDir = join(crdsDir, "medik8s");

export function medik8sCrdManifests(): KubeObject[] {
  return readDir(medik8sCrdsDir);
}

/** "openshift": the OpenShift types plus the lockstep.io kinds; "lockstep": only the latter. */
export type CrdSet = "openshift" | "lockstep";

function readDir(dir: string): KubeObject[] {
  return readdirSync(dir)
    .filter((f) => /\.ya?ml$/.test(f))
    .sort()
    .flatMap((f) => parseObjects(readFileSync(join(dir, f), "utf8"), f));
}

export function crdManifests(set: CrdSet): KubeObject[] {
  const dirs = set === "openshift" ? [openshiftCrdsDir, lockstepCrdsDir] : [lockstepCrdsDir];
  return dirs.flatMap(readDir);
}

/** Installs (or refreshes) the CRDs of a set; returns how many. */
export function installCrdSet(store: Store, set: CrdSet): number {
  if (set !== "openshift" && set !== "lockstep") throw new Error(`unknown CRD set "${String(set)}" (openshift, lockstep)`);
  const crds = crdManifests(set);
  for (const c of crds) store.seed(c);
  return crds.length;
}
