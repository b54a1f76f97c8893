// §18.2: kubectl against kube-sim (or the real server, see helpers.ts) through a written kubeconfig.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type KubeSim } from "../../src/index.js";
import { kubectlRunner } from "@lockstep/testing";
import { call, conformanceServer, onRealServer, realServerBefore } from "../helpers.js";
import { kubectls, type Kubectl } from "../kubectls.js";

let sim: KubeSim;
let dir: string;
let kubeconfig: string;
let bin: string;

const kubectl = kubectlRunner(() => bin, () => kubeconfig);
const ok = kubectl.ok;

// Every kubectl at hand runs the same tests, each against its own kube-sim.
async function start(k: Kubectl): Promise<void> {
  bin = k.path;
  // Auth off: the kubectl on these machines (v1.32.4-dispatcher) sends no bearer token to an http://
  // server, unlike kubectl 1.20.2 (kube-api.md §18.2). The kubeconfig still carries a token.
  sim = await conformanceServer({ crds: "openshift" });
  dir = mkdtempSync(join(tmpdir(), "kube-sim-kubectl-"));
  kubeconfig = join(dir, "kubeconfig");
  await sim.writeKubeconfig(kubeconfig);
}
async function stop(): Promise<void> {
  await sim?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
}

// On a real server (the oracle) the runs would share one server and meet each other's objects;
// there one kubectl is enough, since it is the server under test, not kubectl.
const runs = onRealServer ? kubectls().available.slice(0, 1) : kubectls().available;

describe.each(runs)("kubectl $label", (k) => {
  beforeAll(() => start(k));
  afterAll(stop);

  it("apply --validate=false, get, get -o json", async () => {
    const file = join(dir, "objs.yaml");
    writeFileSync(
      file,
      [
        "apiVersion: v1\nkind: Node\nmetadata:\n  name: k1\n  labels: {pool: worker}\n",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kc\n  namespace: default\ndata:\n  a: '1'\n",
        "apiVersion: machineconfiguration.openshift.io/v1\nkind: MachineConfigPool\nmetadata:\n  name: worker\nspec:\n  paused: false\n",
      ].join("---\n"),
    );
    expect(await ok("apply", "--validate=false", "-f", file)).toMatch(/node\/k1 created[\s\S]*configmap\/kc created[\s\S]*machineconfigpool.machineconfiguration.openshift.io\/worker created/);
    expect(await ok("apply", "--validate=false", "-f", file)).toMatch(/node\/k1 unchanged/);
    expect(await ok("get", "nodes", "-o", "name")).toContain("node/k1");
    expect(await ok("get", "mcp")).toMatch(/worker/);
    const json = JSON.parse(await ok("get", "node", "k1", "-o", "json"));
    expect(json.metadata.labels).toEqual({ pool: "worker" });
    expect(json.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect((await ok("get", "nodes", "-l", "pool=worker", "-o", "name")).trim()).toBe("node/k1");
    expect((await kubectl("get", "node", "nope")).err).toContain('nodes "nope" not found');
  });

  it("patch (strategic and --type merge), with 'no change' for a no-op", async () => {
    expect(await ok("patch", "node", "k1", "-p", '{"spec":{"unschedulable":true}}')).toMatch(/patched/);
    expect((await ok("get", "nodes", "-l", "pool=worker", "--field-selector", "spec.unschedulable=true", "-o", "name")).trim()).toBe("node/k1");
    expect(await ok("patch", "configmap", "kc", "--type", "merge", "-p", '{"data":{"b":"2"}}')).toContain("configmap/kc patched");
    expect(await ok("patch", "configmap", "kc", "--type", "merge", "-p", '{"data":{"b":"2"}}')).toContain("patched (no change)");
    expect(await ok("patch", "mcp", "worker", "--type", "merge", "-p", '{"spec":{"paused":true}}')).toContain("patched");
    expect(JSON.parse(await ok("get", "mcp", "worker", "-o", "json")).spec.paused).toBe(true);
  });

  it("get -w observes a change", async () => {
    const child = spawn(bin, ["--kubeconfig", kubeconfig, "get", "configmap", "kc", "-w", "-o", "jsonpath={.data.w}{\"\\n\"}"], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    const seen = new Promise<void>((resolve) => {
      child.stdout.on("data", (d: Buffer) => {
        out += d.toString();
        if (out.includes("changed")) resolve();
      });
    });
    // kubectl prints the object (an empty line: no data.w yet) once it has read it. Its watch may reach the server
    // later (and not from the read's resourceVersion), so change the object until kubectl shows a change.
    await new Promise<void>((resolve) => {
      const printed = () => out.includes("\n") && resolve();
      child.stdout.on("data", printed);
      printed();
    });
    let shown = false;
    void seen.then(() => (shown = true));
    for (let i = 1; !shown && i <= 50; i++) {
      const w = await call(sim, "PATCH", "/api/v1/namespaces/default/configmaps/kc", { data: { w: `changed-${i}` } }, { "content-type": "application/merge-patch+json" });
      expect(w.status).toBe(200);
      await Promise.race([seen, new Promise((r) => setTimeout(r, 200))]);
    }
    await seen;
    child.kill();
    expect(out).toContain("changed");
  });

  it("create token and auth can-i (TokenRequest, SelfSubjectAccessReview)", async () => {
    await ok("create", "serviceaccount", "robot");
    const token = (await ok("create", "token", "robot", "--duration", "10m")).trim();
    const review = await call(sim, "POST", "/apis/authentication.k8s.io/v1/tokenreviews", { spec: { token } });
    expect(review.json.status.user.username).toBe("system:serviceaccount:default:robot");
    expect((await ok("auth", "can-i", "create", "tokenreviews.authentication.k8s.io")).trim()).toBe("yes");
  });

  it("auth whoami (SelfSubjectReview)", async (ctx) => {
    ctx.skip(realServerBefore(28), "SelfSubjectReview is served from 1.28 (beta 1.27); the real server is older");
    const review = await call(sim, "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", {});
    expect(JSON.parse(await ok("auth", "whoami", "-o", "json")).status.userInfo.username).toBe(review.json.status.userInfo.username);
    if (!onRealServer) expect(review.json.status.userInfo.username).toBe("kube-sim-admin");
  });

  it("bootstrap ClusterRoles exist only with RBAC authorization", async () => {
    // kube-sim seeds them only with authorization: "RBAC" (off here); a real server always runs RBAC in this suite.
    const roles = await ok("get", "clusterroles", "-o", "name");
    if (onRealServer) expect(roles).toContain("clusterrole.rbac.authorization.k8s.io/cluster-admin");
    else expect(roles).toBe("");
  });

  it("delete", async () => {
    expect(await ok("delete", "configmap", "kc")).toContain('configmap "kc" deleted');
    expect(await ok("delete", "node", "k1", "--wait=false")).toContain('node "k1" deleted');
    // The real server is shared with the other files' nodes: only k1 must be gone.
    expect(await ok("get", "nodes", "-o", "name")).not.toContain("node/k1");
  });
});
