// The image run as the chart runs it (`npm run test:image`, as root): `npm run image` builds the OCI archive
// (cached), umoci unpacks its root file system, and every Deployment real helm renders from the chart runs its
// container's command with its rendered environment inside that root file system — chroot as the pod's user,
// the root read-only as the securityContext says, /tmp an emptyDir, the chart's Secrets mounted where the pod
// mounts them — against nats-server (with the chart's NATS users) and kube-sim on loopback. Each must answer
// the chart's readiness probe. A module the image lacks, a devDependency used at run time or a path the chart
// names that is not in the image ends the process, and the test says which and shows its output.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { onDemoRelease, startSimulation, type Simulation } from "@lockstep/cluster-sim";
import { kubeConfigForUrl } from "@lockstep/kube/client-node";
import { startKubeSim, type KubeSim } from "@lockstep/kube-sim";
import { startNatsServer, waitFor, type NatsServer } from "@lockstep/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { buildImage, type ImageBuild } from "../../scripts/image/build.mjs";
import { toolOrSkip } from "../../scripts/tools.mjs";
import { containerRun, type ContainerRun, type ImageConfig, type PodSpec } from "./pod.js";

const REPO = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const NAMESPACE = "lockstep";
const RELEASE = "lockstep";
const SERVICES = ["watcher", "lease-coordinator", "skew-enforcer", "bootimage-updater", "status-aggregator"] as const;
// Where the test puts the kubeconfig that stands in for the pod's in-cluster ServiceAccount config
// (kube-sim serves plain HTTP here; in-cluster config is HTTPS only). Not under /var/run: a symlink to /run.
const KUBE_DIR = "/etc/lockstep-image-test";

interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
  data?: Record<string, string>;
  spec?: { template?: { spec: PodSpec } };
}

let work: string;
let image: ImageBuild;
let rootfs: string;
let imageConfig: ImageConfig;
let manifests: Manifest[];
let nats: NatsServer;
let kube: KubeSim;
let sim: Simulation;
const passwords = Object.fromEntries(SERVICES.map((s) => [s, `p${randomBytes(12).toString("hex")}`])) as Record<string, string>;
const natsPasswordEnv = (s: string) => `LOCKSTEP_${s.toUpperCase().replace(/-/g, "_")}_NATS_PASSWORD`;
const running = new Map<string, { child: ChildProcess; log: string }>();

function sh(cmd: string, args: string[], opts: { cwd?: string } = {}): string {
  const r = spawnSync(cmd, args, { encoding: "utf8", maxBuffer: 64 * 2 ** 20, ...opts });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")}: exited ${r.status}: ${r.stderr || r.error?.message}`);
  return r.stdout;
}

beforeAll(async () => {
  if (process.getuid?.() !== 0)
    throw new Error("the image test needs root (it unpacks the image with its owners and runs each service with unshare and chroot as the pod's user): run `npm run test:image` as root");
  work = mkdtempSync(join(tmpdir(), "lockstep-image-test-"));
  image = buildImage({ out: join(work, "out"), log: () => {} });
  // In the CI log: two builds of one commit must name the same digests.
  console.info(`image ${image.reference} built in ${image.seconds} s; layers ${image.layers.map((l) => `${l.what} ${l.digest} ${l.size}`).join(", ")}`);
  const layout = join(work, "layout");
  mkdirSync(layout);
  sh("tar", ["-x", "-f", image.archive, "-C", layout]);
  const index = JSON.parse(readFileSync(join(layout, "index.json"), "utf8"));
  const tag = index.manifests[0].annotations["org.opencontainers.image.ref.name"];
  sh("umoci", ["unpack", "--image", `${layout}:${tag}`, join(work, "bundle")]);
  rootfs = join(work, "bundle", "rootfs");
  const manifest = JSON.parse(readFileSync(join(layout, "blobs", ...index.manifests[0].digest.split(":")), "utf8"));
  imageConfig = JSON.parse(readFileSync(join(layout, "blobs", ...manifest.config.digest.split(":")), "utf8")).config;

  // The chart with its NATS authorization block, which nats-server below runs.
  const helm = toolOrSkip("helm");
  if (helm.skip !== undefined) throw new Error(`no helm: ${helm.skip}`);
  const rendered = sh(helm.path, ["template", RELEASE, join(REPO, "deploy/helm/lockstep"), "--namespace", NAMESPACE, "--set", "global.nats.authorization.configMap=true"]);
  manifests = parseAllDocuments(rendered).map((d) => d.toJSON()).filter((m): m is Manifest => Boolean(m?.kind));
  const conf = manifests.find((m) => m.kind === "ConfigMap" && m.metadata.name.endsWith("-nats-authorization"))!.data!["authorization.conf"]!;
  for (const s of SERVICES) process.env[natsPasswordEnv(s)] = passwords[s];
  nats = await startNatsServer({ config: conf });
  kube = await startKubeSim({ crds: "openshift" });
  for (const ns of new Set([NAMESPACE, ...manifests.filter((m) => m.kind === "Namespace").map((m) => m.metadata.name)])) {
    const res = await fetch(`${kube.url}/api/v1/namespaces`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ apiVersion: "v1", kind: "Namespace", metadata: { name: ns } }) });
    if (!res.ok && res.status !== 409) throw new Error(`namespace ${ns}: HTTP ${res.status}`);
  }
  sim = await startSimulation({ kc: kubeConfigForUrl(kube.url), spec: onDemoRelease({ name: "image", pools: [{ name: "worker", size: 2, maxUnavailable: 1 }] }), timeScale: 60, seed: 7, leases: "enforced" });
}, 600_000);

afterAll(async () => {
  for (const [, r] of running) if (r.child.exitCode === null && r.child.signalCode === null) r.child.kill("SIGTERM");
  await Promise.all([...running.values()].map((r) => exitOf(r.child, 30_000)));
  await sim?.stop();
  await kube?.stop();
  await nats?.stop();
  for (const s of SERVICES) delete process.env[natsPasswordEnv(s)];
  if (work) rmSync(work, { recursive: true, force: true });
}, 120_000);

function exitOf(child: ChildProcess, ms: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const t = setTimeout(() => {
      child.kill("SIGKILL");
      resolve();
    }, ms);
    child.once("exit", () => {
      clearTimeout(t);
      resolve();
    });
  });
}

function existingAncestor(path: string): string {
  return existsSync(path) ? path : existingAncestor(dirname(path));
}

const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** The files of a Secret or ConfigMap volume, from what the chart renders or the test's stubs. */
function volumeFiles(m: ContainerRun["mounts"][number], kubeconfig: string): Record<string, string> {
  if (m.kind === "tmpfs") return {};
  const kind = m.kind === "secret" ? "Secret" : "ConfigMap";
  const name = m.kind === "secret" ? m.secret : m.configMap;
  const obj = manifests.find((x) => x.kind === kind && x.metadata.name === name);
  if (m.path === KUBE_DIR) return { kubeconfig };
  if (!obj) throw new Error(`${kind} ${name} (mounted at ${m.path}) is neither rendered by the chart nor stubbed by this test`);
  const raw = obj.data ?? {};
  const decoded = Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, kind === "Secret" ? Buffer.from(v, "base64").toString("utf8") : v]));
  if (m.kind === "secret" && m.items) return Object.fromEntries(m.items.map((i) => [i.path, decoded[i.key] ?? ""]));
  return decoded;
}

/** Starts one container: a private mount namespace, the root read-only, the pod's mounts, chroot as its user. */
function startContainer(service: string, run: ContainerRun, kubeconfig: string): { child: ChildProcess; log: string } {
  const host = join(work, "volumes", service);
  const lines = ["set -e", `R=${q(rootfs)}`, 'mount --bind "$R" "$R"'];
  if (run.readOnlyRoot) lines.push('mount -o remount,bind,ro "$R"');
  lines.push('mount --rbind /dev "$R/dev"', 'mount --rbind /proc "$R/proc"');
  for (const [i, m] of run.mounts.entries()) {
    // Mount points are made in the unpacked tree as a container runtime makes them; the files the pod
    // reads must be in the image (checked by running it).
    // A symlink in the image must not lead the mount out of it (a runtime resolves it inside the root).
    if (relative(realpathSync(rootfs), realpathSync(existingAncestor(join(rootfs, m.path)))).startsWith("..")) throw new Error(`${service}: mount ${m.path} leaves the image's root file system`);
    mkdirSync(join(rootfs, m.path), { recursive: true });
    if (m.kind === "tmpfs") {
      lines.push(`mount -t tmpfs -o size=64m,mode=1777 tmpfs "$R"${q(m.path)}`);
      continue;
    }
    const dir = join(host, String(i));
    mkdirSync(dir, { recursive: true });
    for (const [file, text] of Object.entries(volumeFiles(m, kubeconfig))) writeFileSync(join(dir, file), text, { mode: 0o644 });
    chmodSync(dir, 0o755);
    lines.push(`mount --bind ${q(dir)} "$R"${q(m.path)}`, `mount -o remount,bind,ro "$R"${q(m.path)}`);
  }
  const env = Object.entries(run.env).map(([k, v]) => q(`${k}=${v}`));
  const groups = run.groups.length ? ` --groups=${run.groups.join(",")}` : "";
  lines.push(`exec chroot --userspec=${run.uid}:${run.gid}${groups} "$R" /usr/bin/env -i -C ${q(run.cwd)} ${env.join(" ")} ${run.argv.map(q).join(" ")}`);
  const log = join(work, `${service}.log`);
  const out = openSync(log, "a");
  const child = spawn("unshare", ["--mount", "--propagation", "private", "sh", "-c", lines.join("\n")], { stdio: ["ignore", out, out] });
  return { child, log };
}

function tail(file: string, n = 30): string {
  try {
    return readFileSync(file, "utf8").trimEnd().split("\n").slice(-n).join("\n");
  } catch {
    return "";
  }
}

describe("the image as the chart runs it", () => {
  it("renders one Deployment per service", () => {
    const names = manifests.filter((m) => m.kind === "Deployment").map((m) => m.spec!.template!.spec.containers[0]!.name).sort();
    expect(names).toEqual([...SERVICES].sort());
  });

  it("every Deployment's container starts from the image's root file system and passes the chart's readiness probe", async () => {
    const kubeconfig = kube.kubeconfig();
    const runs = new Map<string, ContainerRun>();
    for (const d of manifests.filter((m) => m.kind === "Deployment")) {
      const pod = structuredClone(d.spec!.template!.spec) as PodSpec & { automountServiceAccountToken?: boolean; serviceAccountName?: string };
      const c = pod.containers[0]!;
      if (pod.automountServiceAccountToken) {
        pod.volumes = [...(pod.volumes ?? []), { name: "kube-test", secret: { secretName: "kube-test" } }];
        c.volumeMounts = [...(c.volumeMounts ?? []), { name: "kube-test", mountPath: KUBE_DIR, readOnly: true }];
        c.env = [...(c.env ?? []), { name: "KUBECONFIG", value: `${KUBE_DIR}/kubeconfig` }];
      }
      const run = containerRun(pod, c.name, imageConfig, {
        secret: (name, key) => {
          const rendered = manifests.find((m) => m.kind === "Secret" && m.metadata.name === name)?.data?.[key];
          if (rendered !== undefined) return Buffer.from(rendered, "base64").toString("utf8");
          const pw = /^(.+)-password$/.exec(key);
          return pw && passwords[pw[1]!] !== undefined ? passwords[pw[1]!] : undefined;
        },
        configMap: (name, key) => manifests.find((m) => m.kind === "ConfigMap" && m.metadata.name === name)?.data?.[key],
        field: (path) => ({ "metadata.name": `${d.metadata.name}-image-test`, "metadata.namespace": NAMESPACE, "spec.nodeName": "image-test-node", "status.podIP": "127.0.0.1", "spec.serviceAccountName": pod.serviceAccountName ?? "default" })[path],
      });
      // Loopback stands in for the cluster's Service DNS name of NATS.
      run.env.NATS_URL = nats.url;
      expect(run.uid, `${c.name} runs as the chart's user`).toBe(1000);
      expect(run.readOnlyRoot, `${c.name} has a read-only root`).toBe(true);
      expect(run.readiness, `${c.name} has an HTTP readiness probe`).toBeDefined();
      runs.set(c.name, run);
    }
    // The watcher first: the others are ready once the state plane it writes is loaded.
    for (const service of SERVICES) running.set(service, startContainer(service, runs.get(service)!, kubeconfig));
    for (const service of SERVICES) {
      const run = runs.get(service)!;
      const r = running.get(service)!;
      const exited = () => r.child.exitCode !== null || r.child.signalCode !== null;
      await waitFor(
        async () => exited() || (await fetch(`http://127.0.0.1:${run.readiness!.port}${run.readiness!.path}`).catch(() => undefined))?.status === 200,
        { what: `${service} ready (GET ${run.readiness!.path} on ${run.readiness!.port})`, timeoutMs: 180_000, intervalMs: 500, explain: () => tail(r.log, 15) },
      );
      if (exited()) throw new Error(`${service} exited (${r.child.exitCode ?? r.child.signalCode}) inside the image:\n${tail(r.log)}`);
    }
  }, 300_000);

  it("stops on SIGTERM as the kubelet stops it", async () => {
    for (const [service, r] of running) {
      r.child.kill("SIGTERM");
      await exitOf(r.child, 30_000);
      expect(r.child.exitCode, `${service} exit code after SIGTERM\n${tail(r.log)}`).toBe(0);
    }
  }, 200_000);
});
