import { parseConfig } from "@lockstep/runtime";
import { describe, expect, it } from "vitest";
import { aggregatorConfigSchema } from "./config.js";

const base = { NATS_URL: "nats://127.0.0.1:4222" };

describe("status-aggregator config", () => {
  it("leaves the Update Status API off and writes policy status by default", () => {
    expect(parseConfig(aggregatorConfigSchema, base)).toMatchObject({
      ok: true,
      config: {
        GRPC_PORT: 9094,
        HTTP_PORT: 8094,
        DEBOUNCE_MS: 25,
        LEASE_NAMESPACE: "lockstep-leases",
        FOREIGN_NODE_LEASE_NAMESPACES: ["kube-node-maintenance"],
        MEDIK8S_LEASE_NAMESPACES: ["medik8s-leases"],
        WRITE_POLICY_STATUS: true,
        UPDATE_API_ENABLED: false,
        UPDATE_API_WRITES_PER_SECOND: 20,
      },
    });
  });

  it("turns the Update Status API on with its own write cap", () => {
    const r = parseConfig(aggregatorConfigSchema, { ...base, UPDATE_API_ENABLED: "true", UPDATE_API_WRITES_PER_SECOND: "50", WRITE_POLICY_STATUS: "false" });
    expect(r).toMatchObject({ ok: true, config: { UPDATE_API_ENABLED: true, UPDATE_API_WRITES_PER_SECOND: 50, WRITE_POLICY_STATUS: false } });
  });

  it("lists every bad setting at once", () => {
    const r = parseConfig(aggregatorConfigSchema, { ...base, DEBOUNCE_MS: "20000", UPDATE_API_WRITES_PER_SECOND: "0", WATCH_REFRESH_MS: "50", UPDATE_API_ENABLED: "maybe" });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors.map((e) => e.split(":")[0]).sort()).toEqual(["DEBOUNCE_MS", "UPDATE_API_ENABLED", "UPDATE_API_WRITES_PER_SECOND", "WATCH_REFRESH_MS"]);
  });
});
