import { parseConfig } from "@lockstep/runtime";
import { describe, expect, it } from "vitest";
import { DEFAULT_ACTS_FOR } from "./admission/verdict.js";
import { DEFAULT_TAINT_EXEMPT_KEYS } from "./admission/taints.js";
import { actsForOf, adaptersOf, authModeOf, classifyOptionsOf, leaseCoordinatorConfigSchema } from "./config.js";

const base = { NATS_URL: "nats://127.0.0.1:4222" };
const errorsOf = (env: Record<string, string>) => {
  const r = parseConfig(leaseCoordinatorConfigSchema, { ...base, ...env });
  return r.ok ? [] : r.errors;
};

describe("lease-coordinator config", () => {
  it("authenticates with tokens unless told otherwise, and has no webhook without a certificate", () => {
    const r = parseConfig(leaseCoordinatorConfigSchema, base);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(authModeOf(r.config)).toEqual({ token: true, mtls: false });
    expect(r.config.ADMISSION_TLS_CERT).toBeUndefined();
    expect(actsForOf(r.config)).toEqual(DEFAULT_ACTS_FOR);
  });

  it("lists every problem of LEASE_AUTH and ADMISSION_* at once", () => {
    const errors = errorsOf({ LEASE_AUTH: "basic", ADMISSION_TLS_CERT: "/x.crt", ADMISSION_ACTS_FOR: '[{"subject":""}]' });
    expect(errors.join("\n")).toMatch(/LEASE_AUTH.*"basic" is not "none" or a comma list/);
    expect(errors.join("\n")).toMatch(/ADMISSION_TLS_KEY.*go together/);
    expect(errors.join("\n")).toMatch(/ADMISSION_ACTS_FOR.*expected a list/);
  });

  it("warns of pod deletions and exempts Kubernetes' own taints by default; both are settings", () => {
    const d = parseConfig(leaseCoordinatorConfigSchema, base);
    expect(d.ok && classifyOptionsOf(d.config)).toEqual({ taintExemptKeys: DEFAULT_TAINT_EXEMPT_KEYS, podDelete: "Warn" });
    expect(DEFAULT_TAINT_EXEMPT_KEYS).not.toContain("node.kubernetes.io/out-of-service");
    const r = parseConfig(leaseCoordinatorConfigSchema, { ...base, ADMISSION_TAINT_EXEMPT_KEYS: "node.kubernetes.io/,example.com/x", ADMISSION_POD_DELETE: "Refuse" });
    expect(r.ok && classifyOptionsOf(r.config)).toEqual({ taintExemptKeys: ["node.kubernetes.io/", "example.com/x"], podDelete: "Refuse" });
    expect(errorsOf({ ADMISSION_POD_DELETE: "Block" }).join("\n")).toMatch(/ADMISSION_POD_DELETE.*"Refuse"\|"Warn"\|"Ignore"/);
    expect(errorsOf({ ADMISSION_TAINT_EXEMPT_KEYS: "/" }).join("\n")).toMatch(/ADMISSION_TAINT_EXEMPT_KEYS.*would exempt every taint key/);
  });

  it("needs mutual TLS for mtls", () => {
    expect(errorsOf({ LEASE_AUTH: "mtls" }).join("\n")).toMatch(/mtls needs GRPC_TLS_CERT, GRPC_TLS_KEY, GRPC_TLS_CA and GRPC_TLS_REQUIRE_CLIENT_CERT=true/);
  });

  it("reads acts-for rules", () => {
    const r = parseConfig(leaseCoordinatorConfigSchema, { ...base, ADMISSION_ACTS_FOR: '[{"subject":"group:ops","holders":["alice"]}]' });
    expect(r.ok && actsForOf(r.config)).toEqual([{ subject: "group:ops", holders: ["alice"] }]);
  });

  it("adapts every disruptor but the MCO by default, for 2-minute terms", () => {
    const r = parseConfig(leaseCoordinatorConfigSchema, base);
    expect(r.ok && adaptersOf(r.config)).toEqual({ enabled: ["nodemaintenance", "remediation", "kured", "machine", "machineconfig"], durationSeconds: 120, resyncMs: 10_000 });
    const none = parseConfig(leaseCoordinatorConfigSchema, { ...base, LEASE_ADAPTERS: "none" });
    expect(none.ok && adaptersOf(none.config)).toBeUndefined();
  });

  it("rewrites shared-queue entries every 2 s unless told otherwise, within 100 ms and 10 s", () => {
    const r = parseConfig(leaseCoordinatorConfigSchema, base);
    expect(r.ok && r.config.LEASE_QUEUE_REFRESH).toBe(2_000);
    expect(errorsOf({ LEASE_QUEUE_REFRESH: "50ms" })).toEqual(["LEASE_QUEUE_REFRESH: must be between 100ms and 10s"]);
    expect(errorsOf({ LEASE_QUEUE_REFRESH: "30s" })).toEqual(["LEASE_QUEUE_REFRESH: must be between 100ms and 10s"]);
    expect(errorsOf({ LEASE_QUEUE_REFRESH: "500ms" })).toEqual([]);
  });

  it("lists every problem of LEASE_ADAPTER* at once", () => {
    expect(errorsOf({ LEASE_ADAPTERS: "kured,nmo", LEASE_ADAPTER_DURATION: "2h", LEASE_ADAPTER_RESYNC: "10ms" })).toEqual([
      'LEASE_ADAPTERS: unknown adapter "nmo" (known: nodemaintenance, remediation, kured, machine, machineconfig, or none alone)',
      "LEASE_ADAPTER_DURATION: must be whole seconds between 10s and the policy's maxDurationSeconds (3600s)",
      "LEASE_ADAPTER_RESYNC: must be at least 100ms",
    ]);
  });
});
