// The demo's cluster (packages/demo): 3 masters, a worker pool of 6 and a paused infra pool of 2,
// an app with a PDB on each pool. Kept here so whatever replays the demo's shape (the rehearsal's
// comparison with an actual run) uses the same cluster.
import { parseClusterSpec, type ClusterSpec } from "./spec.js";

/**
 * A cluster on the demo's release: AWS in us-east-2 at 4.15.12 (installed at 4.14.20, boot images
 * of 4.15.12), 3 masters; `rest` gives its name, pools and workloads. The whole-system tests run in
 * the demo's environment on this release, each with a cluster of its own size.
 */
export function onDemoRelease(rest: Record<string, unknown>): ClusterSpec {
  return parseClusterSpec({ platform: "aws", region: "us-east-2", version: "4.15.12", history: ["4.14.20"], masters: 3, bootImageVersion: "4.15.12", ...rest });
}

export const DEMO_SPEC = onDemoRelease({
  name: "demo",
  pools: [
    { name: "worker", size: 6, maxUnavailable: 3 },
    { name: "infra", size: 2, maxUnavailable: 1, paused: true, nodeSelector: { "node-role.kubernetes.io/infra": "" } },
  ],
  // A pod on every worker (so there is something to evict from the node under maintenance).
  workloads: [
    { name: "app-worker", pool: "worker", replicas: 6, pdb: { maxUnavailable: 1 } },
    { name: "app-infra", pool: "infra", replicas: 2, pdb: { maxUnavailable: 1 } },
  ],
});
