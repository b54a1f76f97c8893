import { createHash } from "node:crypto";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { decodeDataUrl, MachineConfigError, normalizeMachineConfig, toMachineConfigState } from "./machine-config.js";
import { mc } from "./__fixtures__/mc.js";

const sha = (s: string | Buffer) => createHash("sha256").update(s).digest("hex");

describe("decodeDataUrl", () => {
  it.each([
    ["data:,hello%20world%0A", "hello world\n"],
    ["data:text/plain;charset=utf-8;base64,aGVsbG8=", "hello"],
    ["data:;base64,aGVs%0AbG8=", "hello"],
    ["data:,caf%C3%A9", "café"],
    ["data:,", ""],
  ])("%s", (url, text) => expect(decodeDataUrl(url).toString("utf8")).toBe(text));

  it.each([
    ["https://example.com/x", "not a data URL"],
    ["data:text/plain", 'has no ","'],
    ["data:,%zz", "invalid percent-escape"],
    ["data:;base64,!!!", "invalid base64"],
  ])("rejects %s", (url, message) => expect(() => decodeDataUrl(url)).toThrow(message));
});

describe("normalizeMachineConfig", () => {
  const registries = 'unqualified-search-registries = ["docker.io"]\n';
  const raw = mc({
    files: [
      { path: "/etc/a", contents: "alpha", mode: 384 },
      { path: "/etc/containers/registries.conf", contents: registries },
      { path: "/etc/b", contents: "beta beta", percent: true },
    ],
    units: [{ name: "a.service", contents: "[Unit]\n", enabled: true, dropins: [{ name: "10-x.conf", contents: "[Service]\n" }] }, { name: "b.service", mask: true }],
    kernelArguments: ["nosmt"],
    extensions: ["usbguard"],
    kernelType: "realtime",
  });

  it("digests decoded contents and keeps registries.conf in full", () => {
    const s = normalizeMachineConfig(raw);
    expect(s.files).toEqual([
      { path: "/etc/a", mode: 384, modePresent: true, contentsDigest: sha("alpha"), overwrite: true, contents: "" },
      { path: "/etc/containers/registries.conf", mode: 420, modePresent: true, contentsDigest: sha(registries), overwrite: true, contents: registries },
      { path: "/etc/b", mode: 420, modePresent: true, contentsDigest: sha("beta beta"), overwrite: true, contents: "" },
    ]);
    expect(s.units).toEqual([
      { name: "a.service", contentsDigest: sha("[Unit]\n"), enabled: true, enabledPresent: true, mask: false, dropins: [{ name: "10-x.conf", contentsDigest: sha("[Service]\n") }] },
      { name: "b.service", contentsDigest: "", enabled: false, enabledPresent: false, mask: true, dropins: [] },
    ]);
    expect(s).toMatchObject({
      name: "rendered-worker-1",
      kernelArguments: ["nosmt"],
      extensions: ["usbguard"],
      kernelType: "realtime",
      fips: false,
      ignitionVersion: "3.4.0",
      sshUsers: [{ name: "core", sshAuthorizedKeys: ["ssh-ed25519 AAAA core@example"] }],
    });
  });

  it("gives the same digests for base64 and percent-encoded sources of the same bytes", () => {
    const a = normalizeMachineConfig(mc({ files: [{ path: "/x", contents: "same ✓" }] }));
    const b = normalizeMachineConfig(mc({ files: [{ path: "/x", contents: "same ✓", percent: true }] }));
    expect(a.files[0]!.contentsDigest).toBe(b.files[0]!.contentsDigest);
  });

  it("decompresses gzip contents, digests remote sources by URL, and treats absent contents as empty", () => {
    const gz = gzipSync(Buffer.from("zipped"));
    const s = normalizeMachineConfig({
      spec: {
        config: JSON.stringify({
          storage: {
            files: [
              { path: "/g", contents: { source: `data:;base64,${gz.toString("base64")}`, compression: "gzip" } },
              { path: "/r", contents: { source: "https://example.com/r" } },
              { path: "/e" },
            ],
          },
        }),
      },
    });
    expect(s.files.map((f) => f.contentsDigest)).toEqual([sha("zipped"), sha("source:https://example.com/r"), sha("")]);
    expect(s.files[2]!.modePresent).toBe(false);
  });

  it("a password hash change alters only passwdDigest", () => {
    const a = normalizeMachineConfig(mc({ passwordHash: "$6$a" }));
    const b = normalizeMachineConfig(mc({ passwordHash: "$6$b" }));
    expect(a.sshUsers).toEqual(b.sshUsers);
    expect(a.passwdDigest).not.toBe(b.passwdDigest);
  });

  it.each([
    ["not an object", 42, "MachineConfig must be an object"],
    ["config not JSON", { spec: { config: "{" } }, "spec.config is not valid JSON"],
    ["file without path", { spec: { config: { storage: { files: [{}] } } } }, "spec.config.storage.files[0].path is required"],
    ["bad data URL", { spec: { config: { storage: { files: [{ path: "/x", contents: { source: "data:,%G1" } }] } } } }, "file /x: data URL has an invalid percent-escape"],
    ["bad gzip", { spec: { config: { storage: { files: [{ path: "/x", contents: { source: "data:,abc", compression: "gzip" } }] } } } }, "file /x: contents are not valid gzip"],
    ["unknown compression", { spec: { config: { storage: { files: [{ path: "/x", contents: { source: "data:,a", compression: "xz" } }] } } } }, 'unsupported compression "xz"'],
    ["unit without name", { spec: { config: { systemd: { units: [{}] } } } }, "spec.config.systemd.units[0].name is required"],
    ["kargs not strings", { spec: { kernelArguments: [1] } }, "spec.kernelArguments must be a list of strings"],
    ["fips not boolean", { spec: { fips: "yes" } }, "spec.fips must be a boolean"],
  ])("rejects %s with a clear error", (_name, input, message) => {
    expect(() => normalizeMachineConfig(input)).toThrow(MachineConfigError);
    expect(() => normalizeMachineConfig(input)).toThrow(message);
  });
});

describe("toMachineConfigState", () => {
  it("passes a state snapshot through and normalises a raw object", () => {
    const state = normalizeMachineConfig(mc());
    const { passwdDigest: _omit, ...plain } = state;
    expect(toMachineConfigState(plain)).toBe(plain);
    expect(toMachineConfigState(mc())).toEqual(state);
  });
});
