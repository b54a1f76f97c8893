// kubectl on what kube-sim publishes: `apply` with validation on (OpenAPI v3: the server validates
// fields, unknown ones are kubectl's strict-decoding error), `explain` of Lockstep's CRDs, and
// server-side Table output (nodes and Events like kube-apiserver's printers, CRDs' additionalPrinterColumns),
// with every kubectl at hand (test/kubectls.ts).
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startKubeSim, type KubeSim } from "../../src/index.js";
import { kubectlRunner } from "@lockstep/testing";
import { onRealServer, until } from "../helpers.js";
import { kubectls, type Kubectl } from "../kubectls.js";

const { available, missing } = kubectls();

const NODES = `apiVersion: v1
kind: Node
metadata:
  name: master-0
  labels: {node-role.kubernetes.io/master: "", node-role.kubernetes.io/control-plane: ""}
status:
  conditions: [{type: Ready, status: "True"}]
  addresses: [{type: InternalIP, address: 10.0.0.10}]
  nodeInfo: {kubeletVersion: v1.31.4, osImage: Red Hat Enterprise Linux CoreOS, kernelVersion: 5.14.0, containerRuntimeVersion: cri-o://1.31.2}
---
apiVersion: v1
kind: Node
metadata:
  name: worker-0
  labels: {node-role.kubernetes.io/worker: ""}
spec:
  unschedulable: true
status:
  conditions: [{type: Ready, status: "False"}]
  nodeInfo: {kubeletVersion: v1.30.7}
`;

const POLICY = `apiVersion: lockstep.io/v1alpha1
kind: NodeDisruptionPolicy
metadata:
  name: files
spec:
  files:
  - path: /etc/chrony.conf
    actions: [{type: Restart}]
`;

// Against the real server (the oracle) these would still start their own kube-sim: they test
// kube-sim's OpenAPI and Tables for kubectl, so they say so and skip there.
describe.skipIf(onRealServer).each(available)("kubectl $label against kube-sim's OpenAPI and Tables", (k: Kubectl) => {
  let sim: KubeSim;
  let dir: string;
  let kubeconfig: string;

  beforeAll(async () => {
    sim = await startKubeSim({ crds: "openshift" });
    dir = mkdtempSync(join(tmpdir(), "kube-sim-kubectl-openapi-"));
    kubeconfig = join(dir, "kubeconfig");
    await sim.writeKubeconfig(kubeconfig);
  });
  afterAll(async () => {
    await sim?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  // A private discovery cache per server.
  const kubectl = kubectlRunner(() => k.path, () => kubeconfig, () => ({ ...process.env, KUBECACHEDIR: join(dir, "cache") }));
  const ok = kubectl.ok;
  const file = (name: string, text: string) => {
    const p = join(dir, name);
    writeFileSync(p, text);
    return p;
  };
  const lines = (out: string) => out.trim().split("\n").map((l) => l.trim().split(/\s+/));

  it("applies built-ins and custom resources with validation on", async () => {
    const nodes = file("nodes.yaml", NODES);
    const policy = file("policy.yaml", POLICY);
    expect(await ok("apply", "-f", nodes)).toMatch(/node\/master-0 created\s+node\/worker-0 created/);
    expect(await ok("apply", "-f", policy)).toContain("nodedisruptionpolicy.lockstep.io/files created");
    expect(await ok("apply", "-f", policy)).toContain("nodedisruptionpolicy.lockstep.io/files unchanged");
    expect(await ok("apply", "-f", file("cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: default}\ndata: {a: '1'}\n"))).toContain("configmap/c created");
  });

  it("refuses an unknown field with the server's strict-decoding error, storing nothing", async () => {
    const bad = file("bad.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bad, namespace: default, labelz: {a: b}}\ndatta: {a: '1'}\n");
    const r = await kubectl("apply", "-f", bad);
    expect(r.code).not.toBe(0);
    expect(r.err).toContain('Error from server (BadRequest): error when creating "');
    expect(r.err).toContain('ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error:');
    expect(r.err).toContain('unknown field "datta"');
    expect(r.err).toContain('unknown field "metadata.labelz"');
    expect((await kubectl("get", "configmap", "bad")).err).toContain('configmaps "bad" not found');

    const cr = file("bad-cr.yaml", "apiVersion: lockstep.io/v1alpha1\nkind: NodeDisruptionPolicy\nmetadata: {name: bad}\nspecc: {}\n");
    const r2 = await kubectl("apply", "-f", cr);
    expect(r2.code).not.toBe(0);
    expect(r2.err).toContain('NodeDisruptionPolicy in version "v1alpha1" cannot be handled as a NodeDisruptionPolicy: strict decoding error: unknown field "specc"');
    // Turning validation off lets it through; the API server prunes the field as usual.
    expect(await ok("apply", "--validate=false", "-f", cr)).toContain("nodedisruptionpolicy.lockstep.io/bad created");
    expect(JSON.parse(await ok("get", "ndp", "bad", "-o", "json")).specc).toBeUndefined();
  });

  it("explains a CRD's fields from its openAPIV3Schema, and a built-in's", async () => {
    const out = await ok("explain", "nodedisruptionpolicies.spec");
    expect(out).toMatch(/KIND:\s+NodeDisruptionPolicy/);
    expect(out).toMatch(/VERSION:\s+v1alpha1/);
    for (const field of ["files", "units", "sshkey"]) expect(out).toMatch(new RegExp(`^\\s+${field}\\s+<`, "m"));
    const files = await ok("explain", "ndp.spec.files");
    expect(files).toMatch(/^\s+path\s+<string> -required-/m);
    const node = await ok("explain", "nodes.spec");
    expect(node).toMatch(/^\s+unschedulable\s+<boolean>/m);
  });

  it("prints nodes with the server's columns: NAME STATUS ROLES AGE VERSION (and the wide ones)", async () => {
    const rows = lines(await ok("get", "nodes"));
    expect(rows[0]).toEqual(["NAME", "STATUS", "ROLES", "AGE", "VERSION"]);
    expect(rows.slice(1).map((r) => [r[0], r[1], r[2], r[4]])).toEqual([
      ["master-0", "Ready", "control-plane,master", "v1.31.4"],
      ["worker-0", "NotReady,SchedulingDisabled", "worker", "v1.30.7"],
    ]);
    expect(rows[1]![3]).toMatch(/^\d+s$/);
    const wide = await ok("get", "node", "master-0", "-o", "wide");
    expect(wide).toMatch(/INTERNAL-IP\s+EXTERNAL-IP\s+OS-IMAGE\s+KERNEL-VERSION\s+CONTAINER-RUNTIME/);
    expect(wide).toMatch(/10\.0\.0\.10\s+<none>\s+Red Hat Enterprise Linux CoreOS\s+5\.14\.0\s+cri-o:\/\/1\.31\.2/);
  });

  it("prints an events.k8s.io/v1 Event under plain `get events` with the server's columns: LAST SEEN TYPE REASON OBJECT MESSAGE", async () => {
    const seen = new Date(Date.now() - 5_000).toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
    const event = `apiVersion: events.k8s.io/v1
kind: Event
metadata: {name: worker-0.refused, namespace: default}
eventTime: "${seen}"
series: {count: 7, lastObservedTime: "${seen}"}
reportingController: lockstep.io/lease-coordinator
reportingInstance: lease-coordinator-0
action: Refuse
reason: UpdateRefused
regarding: {apiVersion: v1, kind: Node, name: worker-0}
note: update of worker-0 refused
type: Warning
`;
    await ok("create", "-f", file("event.yaml", event));
    const rows = (await ok("get", "events", "-n", "default", "--field-selector", "involvedObject.name=worker-0")).trim().split("\n").map((l) => l.trim().split(/\s{2,}/));
    expect(rows).toHaveLength(2);
    expect(rows[0]).toEqual(["LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"]);
    expect(rows[1]!.slice(1)).toEqual(["Warning", "UpdateRefused", "node/worker-0", "update of worker-0 refused"]);
    expect(rows[1]![0]).toMatch(/^\d+s$/);
    const wide = await ok("get", "events", "-n", "default", "-o", "wide");
    expect(wide).toMatch(/SOURCE\s+MESSAGE\s+FIRST SEEN\s+COUNT\s+NAME/);
    expect(wide).toMatch(/lockstep\.io\/lease-coordinator, lease-coordinator-0\s+update of worker-0 refused\s+\d+s\s+7\s+worker-0\.refused/);
  });

  it("keeps the server's columns while watching (get -w: one-row Tables)", async () => {
    const child = spawn(k.path, ["--kubeconfig", kubeconfig, "get", "nodes", "-w"], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, KUBECACHEDIR: join(dir, "cache") } });
    let out = "";
    // Complete lines only: a chunk may end mid-row.
    const rows = () => out.slice(0, out.lastIndexOf("\n") + 1).split("\n").filter((l) => l.startsWith("worker-0 "));
    const seen = new Promise<void>((resolve) => {
      child.stdout.on("data", (d: Buffer) => {
        out += d.toString();
        if (rows().length >= 2) resolve();
      });
    });
    await until(() => sim.store.watchers().length > 0 && rows().length === 1, "kubectl's watch");
    await ok("label", "node", "worker-0", "watched=yes");
    await seen;
    child.kill();
    expect(out.split("\n")[0]!.trim().split(/\s+/)).toEqual(["NAME", "STATUS", "ROLES", "AGE", "VERSION"]);
    expect(rows()[1]).toMatch(/^worker-0\s+NotReady,SchedulingDisabled\s+worker\s+\d+s\s+v1\.30\.7$/);
  });

  it("prints custom resources with their CRD's printer columns", async () => {
    await ok("patch", "ndp", "files", "--subresource=status", "--type=merge", "-p", JSON.stringify({ status: { conditions: [{ type: "Accepted", status: "True" }] } }));
    const out = await ok("get", "nodedisruptionpolicies");
    expect(lines(out)[0]).toEqual(["NAME", "FILES", "UNITS", "SSHKEY", "ACCEPTED", "AGE"]);
    // Units and SSHKey select nothing: empty cells (null from the server).
    expect(out).toMatch(/^files\s+\/etc\/chrony\.conf\s+True\s+\d+s\s*$/m);
    // A CRD without printer columns shows NAME and AGE.
    await ok("apply", "-f", file("infra.yaml", "apiVersion: config.openshift.io/v1\nkind: Infrastructure\nmetadata: {name: cluster}\n"));
    const infra = lines(await ok("get", "infrastructures.config.openshift.io"));
    expect(infra[0]).toEqual(["NAME", "AGE"]);
    expect(infra[1]![0]).toBe("cluster");
  });
});

// Said once, as a skipped test, when a kubectl is missing.
if (missing.length > 0) it.skip(`kubectl not run: ${missing.join("; ")}`, () => {});
