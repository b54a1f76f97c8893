import { MachineConfigState } from "@lockstep/contracts";
import { describe, expect, it } from "vitest";
import { overlayMachineConfig } from "./overlay.js";

const current = MachineConfigState.fromPartial({
  name: "rendered-worker-1",
  kernelArguments: ["a=1"],
  extensions: ["usbguard"],
  files: [{ path: "/etc/x", contentsDigest: "x1" }, { path: "/etc/y", contentsDigest: "y1" }],
  units: [{ name: "u.service", contentsDigest: "u1" }],
  sshUsers: [{ name: "core", sshAuthorizedKeys: ["k1"] }],
  osImageUrl: "img-1",
});

describe("overlayMachineConfig", () => {
  it("lays a partial MachineConfig over the rendered one like the MCO merge", () => {
    const out = overlayMachineConfig(
      current,
      MachineConfigState.fromPartial({
        name: "99-worker-x",
        kernelArguments: ["a=1", "b=2"],
        files: [{ path: "/etc/y", contentsDigest: "y2" }, { path: "/etc/z", contentsDigest: "z1" }],
        units: [{ name: "v.service", contentsDigest: "v1" }],
        sshUsers: [{ name: "core", sshAuthorizedKeys: ["k2"] }],
      }),
    );
    expect(out.files.map((f) => [f.path, f.contentsDigest])).toEqual([["/etc/x", "x1"], ["/etc/y", "y2"], ["/etc/z", "z1"]]);
    expect(out.units.map((u) => u.name)).toEqual(["u.service", "v.service"]);
    expect(out.kernelArguments).toEqual(["a=1", "b=2"]);
    expect(out.extensions).toEqual(["usbguard"]);
    expect(out.sshUsers).toEqual([{ name: "core", sshAuthorizedKeys: ["k1", "k2"] }]);
    expect(out.osImageUrl).toBe("img-1");
  });

  it("takes a rendered proposal as the whole config", () => {
    const rendered = MachineConfigState.fromPartial({ name: "rendered-worker-2", files: [] });
    expect(overlayMachineConfig(current, rendered)).toBe(rendered);
  });
});
