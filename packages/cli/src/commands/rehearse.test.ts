// `lockstep rehearse` (built CLI) on the oc golden dumps and on a live kube-sim over HTTP: text and
// -o json, exit codes, usage errors, and no write to the cluster.
import { spawn, spawnSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { applyObjects, generateCluster, KubeWriter, kubeConfigForUrl, parseClusterSpec } from "@lockstep/cluster-sim";
import { startKubeSim } from "@lockstep/kube-sim";
import { describe, expect, it } from "vitest";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const mainJs = join(root, "dist", "main.js");
const GOLDEN = join(root, "..", "testing", "testdata", "oc-upgrade-status");
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("LOCKSTEP_")));
const run = (...args: string[]) => spawnSync(process.execPath, [mainJs, "rehearse", ...args], { env, encoding: "utf8" });

describe("lockstep rehearse", () => {
  it("forecasts a paused pool as a blocker, exit 3", () => {
    const r = run("--to", "4.14.1", "--from-dir", GOLDEN, "--case", "4.14.1-paused-worker-pool");
    expect(r.stderr).toBe("");
    expect(r.status).toBe(3);
    expect(r.stdout).toMatch(/^Rehearsal of 4\.14\.0 -> 4\.14\.1 \(4\.14\.1 in progress at the snapshot\) \(seed 1\)/);
    expect(r.stdout).toMatch(/paused-pool worker \(pool worker\)/);
  });

  it("-o json: the forecast as data, the same twice", () => {
    const a = run("--to", "4.16.0-ec.3", "--from-dir", GOLDEN, "--case", "4.16.0-compact", "-o", "json", "--seed", "4");
    const b = run("--to", "4.16.0-ec.3", "--from-dir", GOLDEN, "--case", "4.16.0-compact", "-o", "json", "--seed", "4");
    expect(a.stdout).toBe(b.stdout);
    const f = JSON.parse(a.stdout);
    expect(f.target).toBe("4.16.0-ec.3");
    expect(f.seed).toBe(4);
    expect(f.pools.map((p: { pool: string }) => p.pool)).toEqual(["master", "worker"]);
  });

  it("--nats with no server answering: exit 4, said on stderr", () => {
    const r = run("--to", "4.16.1", "--nats", "nats://127.0.0.1:1");
    expect(r.status).toBe(4);
    expect(r.stderr).toMatch(/cannot read the state plane at nats:\/\/127\.0\.0\.1:1/);
  });

  it("a missing dump or a bad version is a usage error (exit 2)", () => {
    const missing = run("--to", "4.16.1", "--from-dir", GOLDEN, "--case", "nope");
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/missing nope-cv\.yaml/);
    expect(run("--to", "four", "--from-dir", GOLDEN, "--case", "4.16.0-compact").status).toBe(2);
  });
});

describe("lockstep rehearse --kubeconfig", () => {
  it("reads a live cluster (kube-sim over HTTP) and says when the sources are mixed", async () => {
    const ks = await startKubeSim({ crds: ["openshift", "lockstep"] });
    const dir = await mkdtemp(join(tmpdir(), "rehearse-"));
    try {
      const spec = parseClusterSpec({ name: "live", platform: "aws", version: "4.15.3", masters: 1, pools: [{ name: "worker", size: 2 }] });
      const writer = new KubeWriter(kubeConfigForUrl(ks.url), 8);
      await applyObjects(writer, generateCluster(spec).objects);
      writer.close();
      await ks.writeKubeconfig(join(dir, "kubeconfig"));
      const rv = ks.store.resourceVersion;
      const r = await new Promise<{ status: number | null; stdout: string; stderr: string }>((done) => {
        const p = spawn(process.execPath, [mainJs, "rehearse", "--to", "4.15.4", "--kubeconfig", join(dir, "kubeconfig"), "--start", "2026-03-02T10:00:00Z", "-o", "json"], { env });
        let stdout = "", stderr = "";
        p.stdout.on("data", (d) => (stdout += d));
        p.stderr.on("data", (d) => (stderr += d));
        p.on("close", (status) => done({ status, stdout, stderr }));
      });
      expect(r.stderr).toBe("");
      expect(r.status).toBe(0);
      expect(JSON.parse(r.stdout).pools.map((p: { pool: string; state: string }) => `${p.pool} ${p.state}`)).toEqual(["master done", "worker done"]);
      expect(ks.store.resourceVersion).toBe(rv);
      const both = run("--to", "4.15.4", "--kubeconfig", join(dir, "kubeconfig"), "--from-dir", GOLDEN, "--case", "4.16.0-compact");
      expect(both.status).toBe(2);
      expect(both.stderr).toMatch(/give one source/);
    } finally {
      await ks.stop();
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
