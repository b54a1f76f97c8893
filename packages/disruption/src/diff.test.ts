import { describe, expect, it } from "vitest";
import { canonicalKernelType, compareOrdinal, diffMachineConfigs } from "./diff.js";
import { normalizeMachineConfig } from "./machine-config.js";
import { mc, type McSpec } from "./__fixtures__/mc.js";

const diff = (a: McSpec, b: McSpec) => diffMachineConfigs(normalizeMachineConfig(mc(a)), normalizeMachineConfig(mc(b)));

describe("diffMachineConfigs", () => {
  it("orders files: removed first, then added-or-changed, each ascending", () => {
    const d = diff(
      { files: [{ path: "/z-removed" }, { path: "/a-removed" }, { path: "/m", contents: "1" }, { path: "/keep" }] },
      { files: [{ path: "/m", contents: "2" }, { path: "/keep" }, { path: "/b-added" }] },
    );
    expect(d.files).toEqual([
      { key: "/a-removed", change: "removed" },
      { key: "/z-removed", change: "removed" },
      { key: "/b-added", change: "added" },
      { key: "/m", change: "changed" },
    ]);
    expect(d.filesListChanged).toBe(true);
  });

  it("detects a mode-only file change", () => {
    expect(diff({ files: [{ path: "/a", mode: 420 }] }, { files: [{ path: "/a", mode: 384 }] }).files).toEqual([{ key: "/a", change: "changed" }]);
  });

  it("orders units: added, then changed, then removed", () => {
    const d = diff(
      { units: [{ name: "r.service" }, { name: "c.service", enabled: true }, { name: "d.service", dropins: [{ name: "a.conf", contents: "x" }] }] },
      { units: [{ name: "c.service", enabled: false }, { name: "d.service", dropins: [{ name: "a.conf", contents: "y" }] }, { name: "b.service" }, { name: "a.service", mask: true }] },
    );
    expect(d.units).toEqual([
      { key: "a.service", change: "added" },
      { key: "b.service", change: "added" },
      { key: "c.service", change: "changed" },
      { key: "d.service", change: "changed" },
      { key: "r.service", change: "removed" },
    ]);
  });

  it("a reordered files list is a list change with no changed path", () => {
    const d = diff({ files: [{ path: "/a" }, { path: "/b" }] }, { files: [{ path: "/b" }, { path: "/a" }] });
    expect(d).toMatchObject({ filesListChanged: true, files: [], rebootFields: [], passwdChanged: false });
  });

  it.each<[string, McSpec, McSpec, string[]]>([
    ["OS image", {}, { osImageURL: "quay.io/x@sha256:bbbb" }, ["osImageURL"]],
    ["kernel arguments", {}, { kernelArguments: ["nosmt"] }, ["kernelArguments"]],
    ["kernel argument order", { kernelArguments: ["a", "b"] }, { kernelArguments: ["b", "a"] }, ["kernelArguments"]],
    ["FIPS", {}, { fips: true }, ["fips"]],
    ["kernel type", {}, { kernelType: "realtime" }, ["kernelType"]],
    ["extensions", {}, { extensions: ["wasm"] }, ["extensions"]],
    ["empty kernel type vs default", { kernelType: "" }, { kernelType: "default" }, []],
    ["several at once", { kernelType: "64k-pages" }, { kernelType: "realtime", fips: true, osImageURL: "x" }, ["osImageURL", "fips", "kernelType"]],
  ])("reboot field: %s", (_n, a, b, fields) => {
    expect(diff(a, b).rebootFields).toEqual(fields);
  });

  it("ssh key changes set passwdChanged", () => {
    expect(diff({}, { sshKeys: ["ssh-ed25519 BBBB"] }).passwdChanged).toBe(true);
    expect(diff({}, {}).passwdChanged).toBe(false);
  });
});

describe("helpers", () => {
  it("canonicalKernelType", () => {
    expect(["", "default", "realtime", "64k-pages", "bogus"].map(canonicalKernelType)).toEqual(["default", "default", "realtime", "64k-pages", "default"]);
  });
  it("compareOrdinal sorts by UTF-8 bytes", () => {
    // U+FF21 sorts after U+1F600 in UTF-16 code units but before it in UTF-8 bytes.
    expect(["/😀", "/Ａ", "/a", "/B"].sort(compareOrdinal)).toEqual(["/B", "/a", "/Ａ", "/😀"]);
  });
});
