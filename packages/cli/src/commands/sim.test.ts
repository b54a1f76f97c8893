// `lockstep sim run --leases cooperate|enforced` (built CLI): a usage error on other values, listed
// in --help, and the mode reaches the simulator — in "enforced" mode the simulated MCO acts as its own
// ServiceAccounts, which it creates on the API server (kube-sim over real HTTP); "cooperate" does not.
import { execFile, spawnSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { startKubeSim } from "@lockstep/kube-sim";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const mainJs = join(resolve(dirname(fileURLToPath(import.meta.url)), "..", ".."), "dist", "main.js");
const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("LOCKSTEP_")));
const env = { ...clean, KUBECONFIG: "/nonexistent" };
const runAsync = promisify(execFile);

// The smallest run: a generated cluster, one simulated minute, stop.
const SCENARIO = `
name: leases-mode
timeScale: 600
seed: 3
cluster: { name: tiny, version: 4.15.3, masters: 1, pools: [{ name: worker, size: 1 }] }
steps:
  - sleep: { minutes: 1 }
`;

describe("lockstep sim run --leases", () => {
  let dir = "";
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "lockstep-sim-cli-"));
    await writeFile(join(dir, "tiny.yaml"), SCENARIO);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("refuses a mode other than cooperate or enforced with exit 2, before anything runs", () => {
    const r = spawnSync(process.execPath, [mainJs, "sim", "run", "--scenario", "upgrade-basic", "--leases", "sometimes"], { encoding: "utf8", env, timeout: 60_000 });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("option '--leases <mode>' argument 'sometimes' is invalid. Allowed choices are cooperate, enforced.");
    expect(r.stdout).toBe("");
  });

  it("is listed in --help with its choices", () => {
    const r = spawnSync(process.execPath, [mainJs, "sim", "run", "--help"], { encoding: "utf8", env, timeout: 60_000 });
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/--leases <mode>[\s\S]*?\(choices:\s+"cooperate",\s+"enforced"\)/);
  });

  it.each([
    ["enforced", 200],
    ["cooperate", 404],
  ])("--leases %s reaches the simulator (MCO ServiceAccount: HTTP %i)", async (mode, saStatus) => {
    const ks = await startKubeSim({ crds: "openshift" });
    try {
      // Asynchronous: kube-sim serves from this process while the CLI runs.
      const r = await runAsync(process.execPath, [mainJs, "sim", "run", "--scenario", join(dir, "tiny.yaml"), "--server", ks.url, "--leases", mode], { encoding: "utf8", env, timeout: 60_000 });
      expect(r.stdout).toContain(`scenario leases-mode on ${ks.url}, time scale 600x, seed 3, leases ${mode}`);
      expect(r.stdout).toMatch(/scenario leases-mode passed in/);
      const sa = await fetch(`${ks.url}/api/v1/namespaces/openshift-machine-config-operator/serviceaccounts/machine-config-controller`);
      expect(sa.status).toBe(saStatus);
    } finally {
      await ks.stop();
    }
  });
});
