// Whole-system test of the preemption loose ends (issue 29), with the services as processes and the
// `lockstep` command as an admin uses it: a holder built on @lockstep/lease-client learns of an
// admin's `lease acquire --force` on the Watch stream without having opted in, with the preemption
// as fields; the admin withdraws it with `lease cancel-preemption`, and the holder is told before
// its safe point; a second withdrawal has nothing to withdraw (exit 3).
import { execFile } from "node:child_process";
import { join } from "node:path";
import { onDemoRelease } from "@lockstep/cluster-sim";
import { OperationType, PreemptionKind } from "@lockstep/contracts";
import { acquireLease, type PreemptionInfo } from "@lockstep/lease-client";
import { describe, expect, it } from "vitest";
import { startTestSystem, until, type TestSystem } from "./system.js";

const SPEC = onDemoRelease({ name: "preempt", pools: [{ name: "worker", size: 2, maxUnavailable: 1 }], workloads: [] });
const CLI = join(import.meta.dirname, "..", "..", "packages", "cli", "dist", "main.js");

/** Run asynchronously: kube-sim serves the coordinator's Lease writes from this very process. */
function lockstep(t: TestSystem, ...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [CLI, ...args, "--server", t.env.system.grpcAddress("lease-coordinator")], { encoding: "utf8" }, (_err, stdout, stderr) =>
      resolve({ code: child.exitCode, stdout, stderr }),
    );
  });
}

describe("preemption: watched by default, withdrawn by the forcer", () => {
  it("a holder learns of a forced acquire without opting in, and of its withdrawal before its safe point", async () => {
    const t = await startTestSystem({ spec: SPEC });
    try {
      const nodes = (await (await fetch(`${t.env.kube.url}/api/v1/nodes?labelSelector=node-role.kubernetes.io%2Fworker`)).json()) as { items: Array<{ metadata: { name: string } }> };
      const node = nodes.items[0]!.metadata.name;
      let reachSafePoint!: () => void;
      const safePoint = new Promise<void>((r) => (reachSafePoint = r));
      const preempted: PreemptionInfo[] = [];
      const withdrawn: PreemptionInfo[] = [];
      const handle = await acquireLease({
        address: t.env.system.grpcAddress("lease-coordinator"),
        node,
        operation: "Reboot",
        holder: "e2e-rebooter",
        reason: "kernel update",
        durationSeconds: 120,
        // Renews are rare: only the Watch stream, on by default, can tell it within the test.
        timings: { retryPeriodSeconds: 60, renewDeadlineSeconds: 100 },
        onPreempted: (info) => {
          preempted.push(info);
          return safePoint;
        },
        onPreemptionWithdrawn: (info) => void withdrawn.push(info),
      });

      const forced = await lockstep(t, "lease", "acquire", node, "--op", "Maintenance", "--holder", "admin", "--reason", "reseat a DIMM", "--force");
      expect(forced.code, forced.stderr).toBe(3);
      expect(forced.stderr).toContain("preemption pending: e2e-rebooter preempted by admin (Maintenance)");
      await until("the holder told of the preemption", () => preempted.length > 0, 30_000);
      expect(handle.signal.aborted).toBe(true);
      expect(preempted[0]!.preemption).toMatchObject({ kind: PreemptionKind.PREEMPTION_KIND_FORCED, holder: "admin", operation: OperationType.OPERATION_TYPE_MAINTENANCE, reason: "reseat a DIMM" });

      const cancel = await lockstep(t, "lease", "cancel-preemption", node, "--holder", "admin");
      expect(cancel.stderr).toBe("");
      expect(cancel.code).toBe(0);
      expect(cancel.stdout).toBe(`preemption of ${node} withdrawn; e2e-rebooter keeps it\n`);
      await until("the holder told of the withdrawal", () => withdrawn.length > 0, 30_000);
      expect(withdrawn[0]!.preemption).toMatchObject({ kind: PreemptionKind.PREEMPTION_KIND_WITHDRAWN, holder: "admin", operation: OperationType.OPERATION_TYPE_MAINTENANCE });
      await until("lease.preemption-withdrawn published", () => t.events.events.some((e) => e.fact === "lease.preemption-withdrawn"), 30_000);

      const again = await lockstep(t, "lease", "cancel-preemption", node, "--holder", "admin");
      expect(again.code).toBe(3);
      expect(again.stderr).toContain(`admin had no pending preemption of ${node}; nothing was withdrawn`);

      reachSafePoint();
      await until("the holder's release", () => handle.state === "released", 30_000);
    } finally {
      await t.stop();
    }
  });
});
