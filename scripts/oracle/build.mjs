// Builds kube-apiserver 1.20 from Debian's `kubernetes` source package into a cache folder outside the repo,
// once per source package version, and makes sure etcd (from `etcd-server`) is installed. Debian's packages are
// the one source of a real API server that these machines can reach, so this is the oracle that kube-sim's
// conformance suite is checked against (see packages/kube-sim/README.md, "Known differences from kube-apiserver").
//
// CLI: node scripts/oracle/build.mjs  → prints the path of the kube-apiserver binary on stdout.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const SOURCE_PACKAGE = 'kubernetes';
const APT_PACKAGES = ['golang-go', 'etcd-server', 'golang-github-modern-go-reflect2-dev', 'rsync', 'dpkg-dev', 'make'];
// The vendored reflect2 crashes with Debian's Go 1.19 (it reads runtime internals that moved); Debian's own copy works.
const DEBIAN_REFLECT2 = '/usr/share/gocode/src/github.com/modern-go/reflect2';
const DEB_SRC_FILE = '/etc/apt/sources.list.d/lockstep-oracle-src.sources';
const DEB_SRC = `Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
`;

export class OracleBuildError extends Error {
  name = 'OracleBuildError';
}

/** The cache root: $LOCKSTEP_ORACLE_CACHE, else $XDG_CACHE_HOME/lockstep/oracle, else ~/.cache/lockstep/oracle. */
export function oracleCacheDir(env = process.env) {
  if (env.LOCKSTEP_ORACLE_CACHE) return env.LOCKSTEP_ORACLE_CACHE;
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'lockstep', 'oracle');
}

function log(message) {
  process.stderr.write(`oracle build: ${message}\n`);
}

function have(cmd) {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
}

function run(cmd, args, options = {}) {
  const result = spawnSync(cmd, args, { stdio: ['ignore', 'inherit', 'inherit'], ...options });
  if (result.error) throw new OracleBuildError(`${cmd} could not be run: ${result.error.message}`);
  return result.status === 0;
}

function isRoot() {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

/** The candidate version of the `kubernetes` source package, or undefined when apt knows no deb-src for it. */
function sourceVersion() {
  if (!have('apt-cache')) return undefined;
  const result = spawnSync('apt-cache', ['showsrc', '--only-source', SOURCE_PACKAGE], { encoding: 'utf8' });
  if (result.status !== 0) return undefined;
  const versions = [...result.stdout.matchAll(/^Version: (.+)$/gm)].map((m) => m[1].trim());
  return versions[0];
}

function safeName(version) {
  return version.replace(/[^A-Za-z0-9.+-]/g, '_');
}

function builtDir(cacheDir, version) {
  return join(cacheDir, `kube-apiserver-${safeName(version)}`);
}

function isBuilt(dir) {
  return existsSync(join(dir, 'kube-apiserver')) && existsSync(join(dir, 'build.json'));
}

/** Newest finished build in the cache, for machines where apt cannot tell the version (no deb-src, no root). */
function newestCached(cacheDir) {
  if (!existsSync(cacheDir)) return undefined;
  const dirs = readdirSync(cacheDir)
    .filter((name) => name.startsWith('kube-apiserver-'))
    .map((name) => join(cacheDir, name))
    .filter(isBuilt)
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  return dirs[0];
}

function etcdPath() {
  for (const candidate of ['/usr/bin/etcd']) if (existsSync(candidate)) return candidate;
  const result = spawnSync('sh', ['-c', 'command -v etcd'], { encoding: 'utf8' });
  return result.status === 0 ? result.stdout.trim() : undefined;
}

function requireRoot(what) {
  if (!isRoot()) throw new OracleBuildError(`${what} needs root (apt-get); run as root or build once as root`);
  if (!have('apt-get')) throw new OracleBuildError(`${what} needs apt-get (a Debian-based machine); none found`);
}

function ensureDebSrc() {
  let version = sourceVersion();
  if (version) return version;
  requireRoot(`finding the Debian source package "${SOURCE_PACKAGE}"`);
  if (!existsSync(DEB_SRC_FILE)) {
    log(`adding a deb-src entry for bookworm main (${DEB_SRC_FILE})`);
    writeFileSync(DEB_SRC_FILE, DEB_SRC);
  }
  log('apt-get update');
  if (!run('apt-get', ['update'])) {
    throw new OracleBuildError('apt-get update failed: no network, or the Debian mirror cannot be reached');
  }
  version = sourceVersion();
  if (!version) {
    throw new OracleBuildError(`apt knows no source package "${SOURCE_PACKAGE}" even with a deb-src entry for bookworm main`);
  }
  return version;
}

function ensurePackages() {
  const missing = APT_PACKAGES.filter((pkg) => spawnSync('dpkg', ['-s', pkg], { stdio: 'ignore' }).status !== 0);
  if (missing.length === 0) return;
  requireRoot(`installing ${missing.join(', ')}`);
  log(`apt-get install ${missing.join(' ')}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  if (!run('apt-get', ['install', '-y', '--no-install-recommends', ...missing], { env })) {
    throw new OracleBuildError(`apt-get install ${missing.join(' ')} failed: no network, or the packages are not available`);
  }
}

function compile(cacheDir, version, outDir) {
  const work = join(cacheDir, `work-${process.pid}`);
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  try {
    log(`apt-get source ${SOURCE_PACKAGE} (${version})`);
    if (!run('apt-get', ['source', '--download-only', `${SOURCE_PACKAGE}=${version}`], { cwd: work })) {
      throw new OracleBuildError(`apt-get source ${SOURCE_PACKAGE} failed: no network, or no deb-src access`);
    }
    const dsc = readdirSync(work).find((name) => name.endsWith('.dsc'));
    if (!dsc) throw new OracleBuildError(`apt-get source ${SOURCE_PACKAGE} left no .dsc file`);
    if (!run('dpkg-source', ['--no-check', '-x', dsc, 'src'], { cwd: work })) {
      throw new OracleBuildError(`dpkg-source could not unpack ${dsc}`);
    }
    const src = join(work, 'src');
    const vendored = join(src, 'vendor/github.com/modern-go/reflect2');
    if (!existsSync(DEBIAN_REFLECT2)) throw new OracleBuildError(`${DEBIAN_REFLECT2} missing (golang-github-modern-go-reflect2-dev)`);
    rmSync(vendored, { recursive: true, force: true });
    execFileSync('cp', ['-rL', DEBIAN_REFLECT2, vendored]);
    const env = {
      ...process.env,
      GOPROXY: 'off',
      GOFLAGS: '-mod=vendor',
      GOCACHE: join(work, 'gocache'),
      GOPATH: join(work, 'gopath'),
      GO111MODULE: 'on',
    };
    log('compiling kube-apiserver (a few minutes; niced)');
    const started = Date.now();
    if (!run('nice', ['-n', '15', 'make', 'WHAT=cmd/kube-apiserver'], { cwd: src, env })) {
      throw new OracleBuildError('make WHAT=cmd/kube-apiserver failed (see the output above)');
    }
    const seconds = Math.round((Date.now() - started) / 1000);
    const binary = [join(src, '_output/bin/kube-apiserver'), join(src, '_output/local/bin/linux/amd64/kube-apiserver')].find(existsSync);
    if (!binary) throw new OracleBuildError('make finished but left no kube-apiserver binary under _output');
    const staging = `${outDir}.partial`;
    rmSync(staging, { recursive: true, force: true });
    mkdirSync(staging, { recursive: true });
    execFileSync('cp', [binary, join(staging, 'kube-apiserver')]);
    const goVersion = spawnSync('go', ['version'], { encoding: 'utf8' }).stdout?.trim();
    writeFileSync(
      join(staging, 'build.json'),
      `${JSON.stringify({ sourcePackage: SOURCE_PACKAGE, version, goVersion, compileSeconds: seconds, builtAt: new Date().toISOString() }, null, 2)}\n`,
    );
    rmSync(outDir, { recursive: true, force: true });
    renameSync(staging, outDir);
    // One version is enough: drop builds of older source package versions (110 MB each).
    for (const name of readdirSync(cacheDir)) {
      const dir = join(cacheDir, name);
      if (name.startsWith('kube-apiserver-') && dir !== outDir) rmSync(dir, { recursive: true, force: true });
    }
    log(`built in ${seconds} s: ${join(outDir, 'kube-apiserver')}`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * Makes sure the oracle's binaries exist and returns their paths. Idempotent: a build for the current source
 * package version in the cache is reused. Throws OracleBuildError naming what is missing when it cannot build.
 */
export function buildOracle({ cacheDir = oracleCacheDir() } = {}) {
  const version = sourceVersion();
  const known = version ? builtDir(cacheDir, version) : newestCached(cacheDir);
  let etcd = etcdPath();
  if (known && isBuilt(known) && etcd) {
    return { apiserver: join(known, 'kube-apiserver'), etcd, version: JSON.parse(readFileSync(join(known, 'build.json'), 'utf8')).version, cached: true };
  }
  const resolved = ensureDebSrc();
  ensurePackages();
  etcd = etcdPath();
  if (!etcd) throw new OracleBuildError('etcd not found after installing etcd-server');
  const outDir = builtDir(cacheDir, resolved);
  if (!isBuilt(outDir)) {
    mkdirSync(cacheDir, { recursive: true });
    compile(cacheDir, resolved, outDir);
  }
  return { apiserver: join(outDir, 'kube-apiserver'), etcd, version: resolved, cached: false };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  try {
    const started = Date.now();
    const built = buildOracle();
    log(`${built.cached ? 'cached' : 'built'} kube-apiserver ${built.version} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    process.stdout.write(`${built.apiserver}\n`);
  } catch (error) {
    if (error instanceof OracleBuildError) {
      process.stderr.write(`oracle build: cannot build the kube-apiserver oracle: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}
