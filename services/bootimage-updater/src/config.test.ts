import { parseConfig } from "@lockstep/runtime";
import { describe, expect, it } from "vitest";
import { bootImageUpdaterConfigSchema } from "./config.js";

const base = { NATS_URL: "nats://127.0.0.1:4222" };

describe("bootimage-updater config", () => {
  it("reads the release's boot images from the MCO's ConfigMap and serves on its own ports by default", () => {
    expect(parseConfig(bootImageUpdaterConfigSchema, base)).toMatchObject({
      ok: true,
      config: { GRPC_PORT: 9093, HTTP_PORT: 8093, BOOTIMAGES_NAMESPACE: "openshift-machine-config-operator", BOOTIMAGES_CONFIGMAP: "coreos-bootimages", ERROR_RETRY_PERIOD: 900_000, STALE_RECHECK: 2_000 },
    });
  });

  it("takes the AMI allow-list as a list and the controller's architecture in Go's naming", () => {
    const r = parseConfig(bootImageUpdaterConfigSchema, { ...base, AWS_ALLOWED_AMIS: "ami-1, ami-2", CONTROLLER_ARCH: "arm64", ERROR_RETRY_PERIOD: "5m" });
    expect(r).toMatchObject({ ok: true, config: { AWS_ALLOWED_AMIS: ["ami-1", "ami-2"], CONTROLLER_ARCH: "arm64", ERROR_RETRY_PERIOD: 300_000 } });
  });

  it("lists every bad setting at once", () => {
    const r = parseConfig(bootImageUpdaterConfigSchema, { ...base, CONTROLLER_ARCH: "x86_64", ERROR_RETRY_PERIOD: "soon", GRPC_PORT: "70000" });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors.map((e) => e.split(":")[0]).sort()).toEqual(["CONTROLLER_ARCH", "ERROR_RETRY_PERIOD", "GRPC_PORT"]);
    expect(r.errors.find((e) => e.startsWith("CONTROLLER_ARCH"))).toContain("expected one of amd64, arm64, s390x, ppc64le");
  });
});
