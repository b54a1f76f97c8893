// A stalled step says what it waits for and why, while it waits and when it gives up.
import { describe, expect, it } from "vitest";
import type { Environment } from "./environment.js";
import { NotYet, StepFailed, nodeMessageLine, waitUntil, type StoryContext } from "./story.js";

const context = (down: string[], reports: string[]): StoryContext =>
  ({
    env: { down: () => down } as unknown as Environment,
    waitMs: 1_200,
    reportEveryMs: 400,
    signal: new AbortController().signal,
    onWaiting: (what: string, ms: number, reason: string) => reports.push(`${what} @${Math.round(ms / 100) * 100}: ${reason}`),
  }) as unknown as StoryContext;

describe("waitUntil", () => {
  it("reports the service that is down while waiting, and names it when it gives up", async () => {
    const reports: string[] = [];
    const c = context(["lease-coordinator is down (restart 2 pending)"], reports);
    const err = await waitUntil(c, "the update to start", async () => false).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StepFailed);
    expect((err as Error).message).toBe("timed out after 1 s waiting for the update to start (lease-coordinator is down (restart 2 pending))");
    expect(reports.length).toBeGreaterThanOrEqual(2);
    expect(reports[0]).toMatch(/^the update to start @\d+: lease-coordinator is down \(restart 2 pending\)$/);
  });

  it("with everything up, reports the last error of the check", async () => {
    const reports: string[] = [];
    const c = context([], reports);
    await expect(
      waitUntil(c, "a skew report", async () => {
        throw new Error("14 UNAVAILABLE: No connection established");
      }),
    ).rejects.toThrow("timed out after 1 s waiting for a skew report (last answer: 14 UNAVAILABLE: No connection established)");
    expect(reports[0]).toContain("last answer: 14 UNAVAILABLE");
  });

  it("with everything up, reports how far the condition got", async () => {
    const reports: string[] = [];
    let n = 0;
    await expect(
      waitUntil(context([], reports), "the masters on the target", async () => {
        throw new NotYet(`${Math.min(++n, 2)} of 3 masters Updated`);
      }),
    ).rejects.toThrow("timed out after 1 s waiting for the masters on the target (2 of 3 masters Updated)");
    expect(reports[0]).toMatch(/: 2 of 3 masters Updated$/);
  });

  it("returns the first truthy answer, with no report before the first interval", async () => {
    const reports: string[] = [];
    let n = 0;
    expect(await waitUntil(context([], reports), "the second poll", async () => ++n >= 2 && n)).toBe(2);
    expect(reports).toEqual([]);
  });
});

describe("findKubectl", () => {
  it("takes KUBECTL_BIN when it exists, else the first kubectl on PATH, else none", async () => {
    const { mkdtempSync, writeFileSync, rmSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    const { findKubectl } = await import("./story.js");
    const dir = mkdtempSync(join(tmpdir(), "lockstep-kubectl-"));
    try {
      writeFileSync(join(dir, "kubectl"), "");
      expect(findKubectl({ KUBECTL_BIN: join(dir, "kubectl") })).toBe(join(dir, "kubectl"));
      expect(findKubectl({ KUBECTL_BIN: join(dir, "missing") })).toBeUndefined();
      // The repository's .tools/kubectl comes before PATH when it exists; here only PATH decides.
      const found = findKubectl({ PATH: `${join(dir, "none")}:${dir}` });
      expect([join(dir, "kubectl"), expect.stringMatching(/\.tools\/kubectl$/)]).toContainEqual(found);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("mcpLine", () => {
  it("shows a pool as oc get mcp's columns", async () => {
    const { mcpLine } = await import("./story.js");
    const pool = {
      apiVersion: "machineconfiguration.openshift.io/v1",
      kind: "MachineConfigPool",
      metadata: { name: "worker" },
      status: { machineCount: 6, readyMachineCount: 4, updatedMachineCount: 4, degradedMachineCount: 1, conditions: [{ type: "Updated", status: "False" }, { type: "Updating", status: "True" }, { type: "Degraded", status: "True" }] },
    };
    expect(mcpLine(pool)).toBe("oc get mcp worker: UPDATED=False UPDATING=True DEGRADED=True MACHINECOUNT=6 READYMACHINECOUNT=4 UPDATEDMACHINECOUNT=4 DEGRADEDMACHINECOUNT=1");
    expect(mcpLine(undefined)).toBe("pool not found");
  });
});

describe("nodeMessageLine", () => {
  it("puts the node's name back where the MESSAGE cell says <node>, first line only", () => {
    const cell = "failed to drain node: <node> after 1 hour. Please see machine-config-controller logs for more information\nsecond line";
    expect(nodeMessageLine("demo-worker-a-1", cell)).toBe("failed to drain node: demo-worker-a-1 after 1 hour. Please see machine-config-controller logs for more information");
    expect(nodeMessageLine("demo-worker-a-1", "")).toBe("");
  });
});
