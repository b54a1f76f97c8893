// Loading recorded clusters: the oc-upgrade-status fixtures (Lists of Nodes, MCPs, MCs, CV, COs).
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ocUpgradeStatusDir } from "@lockstep/testing";
import { afterAll, describe, expect, it } from "vitest";
import { parseObjects, startKubeSim, type KubeSim } from "../../src/index.js";
import { call, onRealServer, SIM_ONLY } from "../helpers.js";
import { readFileSync } from "node:fs";

const fixtures = ocUpgradeStatusDir();

const scenario = "4.14.1-paused-worker-pool";
const files = readdirSync(fixtures)
  .filter((f) => f.startsWith(`${scenario}-`) && f.endsWith(".yaml"))
  .map((f) => join(fixtures, f));

const sims: KubeSim[] = [];
afterAll(async () => {
  for (const s of sims) await s.stop();
});

describe("loading fixtures", () => {
  it(`serves the ${scenario} recording with its objects, uids and status intact`, async (ctx) => {
    ctx.skip(onRealServer, SIM_ONLY.store);
    expect(files.length).toBe(5);
    const expected = files.flatMap((f) => parseObjects(readFileSync(f, "utf8"), f));
    const sim = await startKubeSim({ crds: "openshift", load: files });
    sims.push(sim);
    const nodes = await call(sim, "GET", "/api/v1/nodes");
    const wantNodes = expected.filter((o) => o.kind === "Node");
    expect(nodes.json.items.map((n: any) => n.metadata.name)).toEqual(wantNodes.map((n) => n.metadata!.name).sort());
    const n0 = wantNodes[0]!;
    const got = (await call(sim, "GET", `/api/v1/nodes/${n0.metadata!.name}`)).json;
    expect(got.metadata.uid).toBe(n0.metadata!.uid);
    expect(got.metadata.annotations).toEqual(n0.metadata!.annotations);
    expect(got.status.conditions).toEqual(n0.status.conditions);
    const mcps = await call(sim, "GET", "/apis/machineconfiguration.openshift.io/v1/machineconfigpools");
    const wantMcps = expected.filter((o) => o.kind === "MachineConfigPool");
    expect(mcps.json.items).toHaveLength(wantMcps.length);
    const worker = mcps.json.items.find((p: any) => p.metadata.name === "worker");
    expect(worker.spec.paused).toBe(wantMcps.find((p) => p.metadata!.name === "worker")!.spec.paused);
    expect(worker.status).toEqual(wantMcps.find((p) => p.metadata!.name === "worker")!.status);
    const cv = await call(sim, "GET", "/apis/config.openshift.io/v1/clusterversions/version");
    expect(cv.json.status.desired).toEqual(expected.find((o) => o.kind === "ClusterVersion")!.status.desired);
    const cos = await call(sim, "GET", "/apis/config.openshift.io/v1/clusteroperators");
    expect(cos.json.items).toHaveLength(expected.filter((o) => o.kind === "ClusterOperator").length);
  });

  it("dumps the store and serves the dump again identically", async (ctx) => {
    ctx.skip(onRealServer, SIM_ONLY.store);
    const a = await startKubeSim({ crds: "openshift", load: files });
    sims.push(a);
    const dir = mkdtempSync(join(tmpdir(), "kube-sim-dump-"));
    try {
      const path = join(dir, "dump.yaml");
      await a.dump(path);
      const b = await startKubeSim({ load: [path] });
      sims.push(b);
      const strip = (l: any) => l.json.items.map((o: any) => ({ ...o, metadata: { ...o.metadata, resourceVersion: undefined } }));
      for (const p of ["/api/v1/nodes", "/apis/machineconfiguration.openshift.io/v1/machineconfigs", "/apis/config.openshift.io/v1/clusteroperators"]) {
        expect(strip(await call(b, "GET", p))).toEqual(strip(await call(a, "GET", p)));
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("reports objects of unknown kinds clearly", async (ctx) => {
    ctx.skip(onRealServer, SIM_ONLY.store);
    await expect(startKubeSim({ load: files })).rejects.toThrow(/no kind "\w+" is registered for version "[a-z.]+\/v1"/);
  });
});
