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
        DEBOUNCE_MS: 10,
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

  it("reads alerts only when ALERTS_URL is set, every 30 s by default", () => {
    const none = parseConfig(aggregatorConfigSchema, base);
    expect(none).toMatchObject({ ok: true, config: { ALERTS_INTERVAL: 30_000 } });
    expect(none.ok && none.config.ALERTS_URL).toBeUndefined();
    const url = "https://thanos-querier.openshift-monitoring.svc:9091/api/v1/alerts";
    const r = parseConfig(aggregatorConfigSchema, { ...base, ALERTS_URL: url, ALERTS_TOKEN_FILE: "/var/run/token", ALERTS_INTERVAL: "10s", ALERTS_MAX_AGE: "45s" });
    expect(r).toMatchObject({ ok: true, config: { ALERTS_URL: url, ALERTS_TOKEN_FILE: "/var/run/token", ALERTS_INTERVAL: 10_000, ALERTS_MAX_AGE: 45_000 } });
  });

  it("lists every bad alerts setting at once", () => {
    const r = parseConfig(aggregatorConfigSchema, { ...base, ALERTS_URL: "thanos:9091", ALERTS_INTERVAL: "20s", ALERTS_MAX_AGE: "10s", ALERTS_CA_FILE: "/ca.pem" });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors.map((e) => e.split(":")[0]).sort()).toEqual(["ALERTS_MAX_AGE", "ALERTS_URL"]);
  });
});
