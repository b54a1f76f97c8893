// `lockstep skew` and `lockstep check-upgrade` against a real gRPC server serving SkewService with fixed answers.
import { Server, ServerCredentials, status } from "@grpc/grpc-js";
import { type SkewReport, SkewServiceService, type SkewServiceServer } from "@lockstep/contracts";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXIT_BLOCKED, renderSkewReport, runCheckUpgrade, runSkew } from "./skew.js";

const REPORT: SkewReport = {
  controlPlaneVersion: "4.16.5",
  targetVersion: "4.16.5",
  upgradeable: false,
  reason: "PausedPoolLagging",
  message: "One or more paused machine config pools lag behind the control plane release 4.16.5: paused pool worker: 0 of 2 nodes updated",
  laggingPools: [{ pool: "worker", reason: "PausedPoolLagging", poolVersion: "4.15.9", machineCount: 2, updatedMachineCount: 0, degradedMachineCount: 0, paused: true }],
  bootImage: { mode: "Automatic", ocpVersion: "4.15.9", rhcosVersion: "", ocpLimit: "4.13.0", rhcosLimit: "9.2", violated: false, warning: "" },
  updateComplete: false,
  incompletePools: ["worker"],
  completionMessage: "update to 4.16.5 is not complete: pool worker is paused: 0 of 2 nodes at 4.16.5; unpause it to finish the update",
};

const FRESH = { ageSeconds: 0.4, stale: false, maxAgeSeconds: 15, heard: true };
const STALE = { ageSeconds: 41.4, stale: true, maxAgeSeconds: 15, heard: true };
const STALE_MESSAGE =
  "Lockstep cannot tell whether every pool is on the current minor version: the watcher has not been heard from since 2026-11-25T12:00:41Z. Minor upgrades are blocked until it is heard from again; check the watcher (lockstep-watcher pods, their logs and the API server).";
/** What the server says of its view's age (a stale view fails closed, as the enforcer does); a test sets it. */
let freshness = FRESH;

/** Collects what a command writes on stderr. */
function stderr(): Writable & { text: () => string } {
  let text = "";
  const w = new Writable({ write: (chunk, _enc, cb) => ((text += String(chunk)), cb()) });
  return Object.assign(w, { text: () => text });
}
const WARNING = "warning: Lockstep's view of the cluster is 41 s old (the watcher has not been heard from); what follows may be out of date\n";

let server: Server;
let addr: string;
beforeAll(async () => {
  server = new Server();
  const impl: SkewServiceServer = {
    getSkewReport: (_c, cb) =>
      cb(null, { report: freshness.stale ? { ...REPORT, upgradeable: false, reason: "StateStale", message: STALE_MESSAGE } : REPORT, freshness }),
    // Minor targets are blocked, z-streams allowed, force bypasses: the service's contract in miniature.
    checkUpgrade: (c, cb) => {
      const { targetVersion, force } = c.request;
      if (!/^\d+\.\d+\.\d+$/.test(targetVersion)) return cb({ code: status.INVALID_ARGUMENT, details: `target_version: invalid version ${targetVersion}` }, null);
      const minor = !targetVersion.startsWith("4.16.");
      if (!minor) return cb(null, { allowed: true, kind: "ZStream", reasons: [], message: `z-stream update from 4.16.5 to ${targetVersion}`, forced: false, warnings: [], freshness });
      if (freshness.stale) return cb(null, { allowed: false, kind: "Minor", reasons: ["StateStale"], message: STALE_MESSAGE, forced: false, warnings: [], freshness });
      return cb(null, { allowed: force, kind: "Minor", reasons: ["PausedPoolLagging"], message: force ? "Forced through blocking failures: PausedPoolLagging" : REPORT.message, forced: force, warnings: [], freshness });
    },
    checkScaleUp: (_c, cb) => cb({ code: status.UNIMPLEMENTED, details: "not used" }, null),
  };
  server.addService(SkewServiceService, impl);
  const port = await new Promise<number>((res, rej) => server.bindAsync("127.0.0.1:0", ServerCredentials.createInsecure(), (e, p) => (e ? rej(e) : res(p))));
  addr = `127.0.0.1:${port}`;
});
afterAll(() => server.forceShutdown());

describe("lockstep skew", () => {
  it("prints the verdict, the lagging pools, the boot image and completion", async () => {
    const out = await runSkew(addr);
    expect(out).toBe(renderSkewReport(REPORT));
    expect(out).toContain("Upgradeable:    False (PausedPoolLagging)");
    expect(out).toMatch(/worker\s+PausedPoolLagging\s+4\.15\.9\s+0\/2\s+0\s+yes/);
    expect(out).toContain("Boot image:     mode Automatic, OCP 4.15.9 (limits OCP 4.13.0, RHEL 9.2)");
    expect(out).toContain("Update:         incomplete (pools: worker)\n                update to 4.16.5 is not complete: pool worker is paused");
  });

  it("-o json is the report itself, with the enforcer's freshness", async () => {
    expect(JSON.parse(await runSkew(addr, "json"))).toEqual({ ...REPORT, freshness: FRESH });
  });

  it("warns on stderr while the enforcer's view is stale; -o json says stale true", async () => {
    const fresh = stderr();
    await runSkew(addr, "text", fresh);
    expect(fresh.text()).toBe("");
    freshness = STALE;
    try {
      const warn = stderr();
      const out = await runSkew(addr, "text", warn);
      expect(warn.text()).toBe(WARNING);
      expect(out).toContain("Upgradeable:    False (StateStale)");
      expect(out).not.toContain("warning:"); // stdout stays the report
      const json = JSON.parse(await runSkew(addr, "json", stderr()));
      expect(json).toMatchObject({ upgradeable: false, reason: "StateStale", freshness: { stale: true, ageSeconds: 41.4, maxAgeSeconds: 15, heard: true } });
    } finally {
      freshness = FRESH;
    }
  });
});

describe("lockstep check-upgrade", () => {
  it("exits 3 for a blocked minor update and 0 for a z-stream", async () => {
    const blocked = await runCheckUpgrade(addr, "4.17.0", false);
    expect(blocked.exitCode).toBe(EXIT_BLOCKED);
    expect(blocked.text).toContain("Update to 4.17.0 (Minor): blocked");
    expect(blocked.text).toContain("Reasons:        PausedPoolLagging");
    const allowed = await runCheckUpgrade(addr, "4.16.6", false);
    expect(allowed).toMatchObject({ exitCode: 0 });
    expect(allowed.text).toContain("Update to 4.16.6 (ZStream): allowed");
  });

  it("a minor refused while the enforcer's view is stale exits 3 with StateStale and a warning; -o json carries freshness", async () => {
    freshness = STALE;
    try {
      const warn = stderr();
      const refused = await runCheckUpgrade(addr, "4.17.0", false, "text", warn);
      expect(refused.exitCode).toBe(EXIT_BLOCKED);
      expect(refused.text).toContain("Update to 4.17.0 (Minor): blocked");
      expect(refused.text).toContain("Reasons:        StateStale");
      expect(warn.text()).toBe(WARNING);
      const json = await runCheckUpgrade(addr, "4.17.0", false, "json", stderr());
      expect(json.exitCode).toBe(EXIT_BLOCKED);
      expect(JSON.parse(json.text)).toMatchObject({ allowed: false, reasons: ["StateStale"], freshness: { stale: true, ageSeconds: 41.4 } });
      // A z-stream stays allowed, still warned of.
      const zWarn = stderr();
      expect(await runCheckUpgrade(addr, "4.16.6", false, "text", zWarn)).toMatchObject({ exitCode: 0 });
      expect(zWarn.text()).toBe(WARNING);
    } finally {
      freshness = FRESH;
    }
  });

  it("--force is allowed and says so", async () => {
    const forced = await runCheckUpgrade(addr, "4.17.0", true);
    expect(forced.exitCode).toBe(0);
    expect(forced.text).toContain("allowed (forced)");
  });

  it("a bad version and an unreachable server are clear errors", async () => {
    await expect(runCheckUpgrade(addr, "four", false)).rejects.toMatchObject({ message: "skew-enforcer at " + addr + ": target_version: invalid version four", exitCode: 2 });
    await expect(runSkew("127.0.0.1:1")).rejects.toThrow(/^cannot reach the skew-enforcer at 127\.0\.0\.1:1: /);
  });
});
