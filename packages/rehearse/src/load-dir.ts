// `--from-dir DIR --case NAME`: the oc golden layout, `<case>-cv.yaml`, `-co`, `-mc`, `-mcp`, `-node`,
// plus `-alerts.json`, `-pod`, `-pdb`, `-lease`, `-budget`, `-ndp` (NodeDisruptionPolicies) and `-infra` when
// present. Read-only.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseObjects, type KubeObject } from "@lockstep/kube-sim";
import type { KubeObject as SimObject } from "@lockstep/cluster-sim";
import { SnapshotError, snapshotOf, type RehearsalSnapshot } from "./snapshot.js";

export const REQUIRED_PARTS = ["cv", "mcp", "node"] as const;
export const OPTIONAL_PARTS = ["co", "mc", "pod", "pdb", "lease", "budget", "ndp", "infra"] as const;

export function loadSnapshotDir(dir: string, caseName: string): RehearsalSnapshot {
  const objects: KubeObject[] = [];
  for (const part of [...REQUIRED_PARTS, ...OPTIONAL_PARTS]) {
    const file = join(dir, `${caseName}-${part}.yaml`);
    if (!existsSync(file)) {
      if ((REQUIRED_PARTS as readonly string[]).includes(part)) throw new SnapshotError(`missing ${caseName}-${part}.yaml in ${dir}`);
      continue;
    }
    try {
      objects.push(...parseObjects(readFileSync(file, "utf8"), `${caseName}-${part}.yaml`));
    } catch (err) {
      throw new SnapshotError(`cannot read ${caseName}-${part}.yaml: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  const snap = snapshotOf(objects as SimObject[]);
  const alerts = join(dir, `${caseName}-alerts.json`);
  if (existsSync(alerts)) {
    try {
      snap.alerts = JSON.parse(readFileSync(alerts, "utf8")) as unknown;
    } catch (err) {
      throw new SnapshotError(`cannot read ${caseName}-alerts.json: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  return snap;
}
