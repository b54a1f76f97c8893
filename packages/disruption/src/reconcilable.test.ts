import { describe, expect, it } from "vitest";
import { unreconcilableReason } from "./reconcilable.js";
import { mc, type McSpec } from "./__fixtures__/mc.js";

type Config = { passwd: { users: Array<Record<string, unknown>>; groups?: unknown[] }; storage: Record<string, unknown>; kernelArguments?: unknown };
/** mc() with its Ignition config edited. */
function withConfig(edit: (c: Config) => void, spec: McSpec = {}): Record<string, unknown> {
  const raw = mc(spec);
  edit((raw["spec"] as { config: Config }).config);
  return raw;
}

describe("unreconcilableReason (mco-behaviors.md §2.6 step 0)", () => {
  const withLinks = withConfig((c) => (c.storage["links"] = [{ path: "/etc/l", target: "/etc/t" }]));
  it.each<[string, Record<string, unknown>, Record<string, unknown>]>([
    ["an SSH key change", mc(), mc({ sshKeys: ["ssh-ed25519 NEW"] })],
    ["a password hash change", mc(), mc({ passwordHash: "$6$x" })],
    ["file, unit and field changes", mc(), mc({ files: [{ path: "/etc/a" }], units: [{ name: "a.service" }], kernelArguments: ["nosmt"], fips: true })],
    ["removing every link", withLinks, mc()],
  ])("allows %s", (_n, old, next) => {
    expect(unreconcilableReason(old, next)).toBeUndefined();
  });

  it.each<[string, Record<string, unknown>, string]>([
    ["a group change", withConfig((c) => (c.passwd.groups = [{ name: "wheel" }])), "ignition passwd groups section contains changes"],
    ["a new non-core user", withConfig((c) => c.passwd.users.push({ name: "alice" })), "users other than core"],
    ["a core field other than keys and password", withConfig((c) => (c.passwd.users[0]!["shell"] = "/bin/zsh")), "core user fields other than sshAuthorizedKeys and passwordHash"],
    ["Ignition kernelArguments", withConfig((c) => (c.kernelArguments = { shouldExist: ["x"] })), "ignition kernelArguments section contains changes"],
    ["disks", withConfig((c) => (c.storage["disks"] = [{ device: "/dev/sdb" }])), "ignition disks section contains changes"],
    ["filesystems", withConfig((c) => (c.storage["filesystems"] = [{ device: "/dev/sdb1", format: "xfs" }])), "ignition filesystems section contains changes"],
    ["raid", withConfig((c) => (c.storage["raid"] = [{ name: "md0" }])), "ignition raid section contains changes"],
    ["directories", withConfig((c) => (c.storage["directories"] = [{ path: "/var/x" }])), "ignition directories section contains changes"],
    ["links added", withConfig((c) => (c.storage["links"] = [{ path: "/etc/l", target: "/etc/t" }])), "ignition links section contains changes"],
    ["a file with append", withConfig((c) => (c.storage["files"] = [{ path: "/etc/a", append: [{ source: "data:,x" }] }])), 'ignition file "/etc/a" includes append'],
    ["the force file", mc({ files: [{ path: "/run/machine-config-daemon-force" }] }), 'ignition file "/run/machine-config-daemon-force" is not allowed'],
  ])("rejects %s", (_n, next, reason) => {
    expect(unreconcilableReason(mc(), next)).toContain(reason);
  });
});
