// Whether a boot image pass runs at all (mco-behaviors.md §3.3, 4.22+ gate: no stamp keys).

import type { ClusterVersionState, InfrastructureState } from "@lockstep/contracts";
import { bootImagePlatform, type BootImagePlatform } from "./platform.js";

export type Gate =
  | { run: true; platform: BootImagePlatform }
  /** The controller does not run on this platform. */
  | { run: false; gate: "platform"; message: string }
  /** Mid-update: return quietly, no condition change; the next Completed transition resumes. */
  | { run: false; gate: "clusterNotStable"; message: string };

export function isClusterStable(cv: Pick<ClusterVersionState, "history"> | undefined): boolean {
  return cv?.history[0]?.state === "Completed";
}

export function evaluateGates(infra: InfrastructureState | undefined, cv: ClusterVersionState | undefined): Gate {
  if (!infra || infra.platform === "") return { run: false, gate: "platform", message: "Infrastructure has no platform status" };
  const platform = bootImagePlatform(infra);
  if (!platform) {
    const what = infra.platform === "Azure" ? `Azure (${infra.azureCloudName})` : infra.platform;
    return { run: false, gate: "platform", message: `boot image updates are not supported on platform ${what}` };
  }
  if (!isClusterStable(cv)) {
    const state = cv?.history[0]?.state;
    return { run: false, gate: "clusterNotStable", message: cv ? `cluster update in progress (history[0].state ${state ?? "absent"})` : "ClusterVersion not observed" };
  }
  return { run: true, platform };
}
