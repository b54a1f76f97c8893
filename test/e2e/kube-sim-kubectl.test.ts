// The README's kubectl examples against `lockstep kube-sim serve --token-auth-file …`, with the real
// kubectl (.tools/kubectl, or KUBECTL_BIN): with authentication on, kube-sim speaks HTTPS with a CA
// of its own pinned in the kubeconfig, so kubectl sends the bearer token and `get nodes` works; with
// the watcher and the lease-coordinator (serving the lease webhook) running against it and a node
// leased to alice, `kubectl cordon` of that node is refused by the webhook naming the holder.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startSystem, type RunningSystem } from "@lockstep/launcher";
import { createTestPki, freePort, hasOpenssl, startNatsServer, waitFor, type NatsServer, type TestPki } from "@lockstep/testing";
import { afterAll, describe, expect, it } from "vitest";
import { blocksRunBy, REPO_ROOT } from "./readme-blocks.js";

const SELF = "test/e2e/kube-sim-kubectl.test.ts";
const KUBECTL = process.env.KUBECTL_BIN ?? join(REPO_ROOT, ".tools", "kubectl");
const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("LOCKSTEP_")));

/** A README line as it runs from a scratch folder: the repository's scripts and kubectl by absolute path. */
const localise = (line: string) =>
  line.replaceAll("node scripts/lockstep.mjs", `node ${join(REPO_ROOT, "scripts", "lockstep.mjs")}`).replaceAll(".tools/kubectl", KUBECTL);

describe.skipIf(!hasOpenssl())("the README's kubectl examples against kube-sim serve with token authentication", () => {
  const dir = mkdtempSync(join(tmpdir(), "lockstep-kubectl-"));
  const vars: Record<string, string> = {};
  const background: ChildProcess[] = [];
  let serveLog = "";
  let nats: NatsServer | undefined;
  let system: RunningSystem | undefined;
  let pki: TestPki | undefined;

  afterAll(async () => {
    await system?.stop();
    await nats?.stop();
    for (const p of background) p.kill("SIGTERM");
    await Promise.all(background.map((p) => (p.exitCode !== null || p.signalCode !== null ? undefined : new Promise((r) => p.once("exit", r)))));
    pki?.remove();
    rmSync(dir, { recursive: true, force: true });
  });

  const sh = (line: string) => spawnSync("sh", ["-c", line], { cwd: dir, encoding: "utf8", env: { ...clean, ...vars }, timeout: 120_000 });

  /** Lockstep's side of the cordon: the watcher, the lease-coordinator serving the webhook, the webhook registered, NODE leased to alice. */
  async function leaseTheNode(node: string) {
    pki = createTestPki();
    nats = await startNatsServer();
    const admissionPort = await freePort();
    const ports = { watcher: { grpc: await freePort(), http: await freePort() }, "lease-coordinator": { grpc: await freePort(), http: await freePort() } };
    system = await startSystem({
      kubeconfig: join(dir, "kc.yaml"),
      natsUrl: nats.url,
      runDir: join(dir, "run"),
      services: ["watcher", "lease-coordinator"],
      ports,
      env: { "lease-coordinator": { ADMISSION_TLS_CERT: pki.path("server.crt"), ADMISSION_TLS_KEY: pki.path("server.key"), ADMISSION_PORT: String(admissionPort) } },
    });
    writeFileSync(
      join(dir, "webhook.json"),
      JSON.stringify({
        apiVersion: "admissionregistration.k8s.io/v1",
        kind: "ValidatingWebhookConfiguration",
        metadata: { name: "lockstep-leases" },
        webhooks: [
          {
            name: "leases.lockstep.io",
            clientConfig: { url: `https://127.0.0.1:${admissionPort}/validate`, caBundle: pki.pem("ca.crt").toString("base64") },
            rules: [{ apiGroups: [""], apiVersions: ["v1"], resources: ["nodes"], operations: ["UPDATE"] }],
            failurePolicy: "Fail",
            sideEffects: "None",
            admissionReviewVersions: ["v1"],
            timeoutSeconds: 5,
          },
        ],
      }),
    );
    // alice's group may take leases, as the chart's lease-user ClusterRole lets it.
    writeFileSync(
      join(dir, "role.json"),
      JSON.stringify({
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "ClusterRole",
        metadata: { name: "lockstep-lease-user" },
        rules: [{ apiGroups: ["lockstep.io"], resources: ["nodeleases"], verbs: ["get", "list", "watch", "acquire"] }],
      }),
    );
    writeFileSync(
      join(dir, "binding.json"),
      JSON.stringify({
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "ClusterRoleBinding",
        metadata: { name: "ops-leases" },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "lockstep-lease-user" },
        subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "Group", name: "ops" }],
      }),
    );
    const rbac = sh(`${KUBECTL} --kubeconfig kc.yaml apply -f role.json -f binding.json`);
    expect(rbac.status, rbac.stderr).toBe(0);
    const applied = sh(`${KUBECTL} --kubeconfig kc.yaml apply -f webhook.json`);
    expect(applied.status, applied.stderr).toBe(0);
    // alice's own token: the coordinator reviews it with kube-sim and makes alice the holder.
    const acquire = () =>
      sh(`node ${join(REPO_ROOT, "scripts", "lockstep.mjs")} lease acquire ${node} --op Maintenance --reason "replace a DIMM" --token alice-token --server ${system!.grpcAddress("lease-coordinator")}`);
    let last: ReturnType<typeof acquire> | undefined;
    await waitFor(() => (last = acquire()).status === 0, {
      timeoutMs: 60_000,
      intervalMs: 500,
      what: `the Maintenance lease on ${node} for alice`,
      explain: () => `${last?.stdout}${last?.stderr}`,
    });
    // The webhook judges from the coordinator's view of Leases (through the watcher): wait until it lists alice's.
    const leases = () => sh(`node ${join(REPO_ROOT, "scripts", "lockstep.mjs")} leases -o json --token alice-token --server ${system!.grpcAddress("lease-coordinator")}`);
    let listed: ReturnType<typeof leases> | undefined;
    await waitFor(() => (listed = leases()).status === 0 && listed.stdout.includes(node) && listed.stdout.includes("alice"), {
      timeoutMs: 60_000,
      intervalMs: 500,
      what: `the coordinator to list alice's lease on ${node}`,
      explain: () => `${listed?.stdout}${listed?.stderr}`,
    });
  }

  it("runs each line of the README block with the real kubectl", async () => {
    const [block] = blocksRunBy(SELF);
    expect(block?.commands.length).toBeGreaterThan(0);
    let served = false;
    for (const raw of block!.commands) {
      const line = localise(raw);
      if (line.endsWith("&")) {
        // `kube-sim serve … &`: runs on; the next line can use it once the kubeconfig is written.
        const p = spawn("sh", ["-c", `exec ${line.slice(0, -1)}`], { cwd: dir, env: clean, stdio: ["ignore", "pipe", "pipe"] });
        p.stdout!.on("data", (d) => (serveLog += d));
        p.stderr!.on("data", (d) => (serveLog += d));
        background.push(p);
        await waitFor(() => /kubeconfig written/.test(serveLog), { timeoutMs: 60_000, what: "kube-sim serve to write kc.yaml", explain: () => serveLog });
        served = true;
        const view = sh(`${KUBECTL} --kubeconfig kc.yaml config view --raw -o json`);
        expect(view.status, view.stderr).toBe(0);
        const kc = JSON.parse(view.stdout);
        expect(kc.clusters[0].cluster.server).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
        expect(Buffer.from(kc.clusters[0].cluster["certificate-authority-data"], "base64").toString()).toContain("BEGIN CERTIFICATE");
        expect(kc.clusters[0].cluster["insecure-skip-tls-verify"]).toBeUndefined();
        continue;
      }
      const assign = /^(\w+)=\$\((.*)\)$/.exec(line);
      if (assign) {
        const r = sh(assign[2]!);
        expect(r.status, `${raw}: ${r.stderr}`).toBe(0);
        vars[assign[1]!] = r.stdout.trim();
        expect(vars[assign[1]!], raw).not.toBe("");
        continue;
      }
      if (/ cordon /.test(line)) {
        await leaseTheNode(vars.NODE!);
        const r = sh(line);
        // kubectl 1.31 prints the refusal as "error: unable to cordon node …" yet exits 0; the node must stay schedulable.
        expect(r.stdout).not.toContain("cordoned");
        expect(r.stderr).toMatch(new RegExp(`admission webhook "leases\\.lockstep\\.io" denied the request: node ${vars.NODE} is leased to alice for Maintenance \\("replace a DIMM"\\)`));
        const after = sh(`${KUBECTL} --kubeconfig kc.yaml get node ${vars.NODE} -o jsonpath={.spec.unschedulable}`);
        expect(after.status, after.stderr).toBe(0);
        expect(after.stdout).toBe("");
        continue;
      }
      const r = sh(line);
      expect(r.status, `${raw}: ${r.stderr}`).toBe(0);
      if (/ get nodes$/.test(line)) {
        // 3 masters and the 2 generated workers, read with the kubeconfig user's token over TLS.
        expect(r.stdout.trim().split("\n").slice(1)).toHaveLength(5);
        expect(r.stdout).toMatch(/^NAME\s+STATUS\s+ROLES/);
      }
    }
    expect(served).toBe(true);
    expect(existsSync(join(dir, "kc.yaml"))).toBe(true);
  }, 300_000);
});
