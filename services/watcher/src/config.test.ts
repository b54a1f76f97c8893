import { parseConfig } from "@lockstep/runtime";
import { describe, expect, it } from "vitest";
import { signalSettings, watchSettings, watcherConfigSchema } from "./config.js";

const base = { NATS_URL: "nats://127.0.0.1:4222" };

describe("watcher config", () => {
  it("beats every 3 s and elects with 6 s / 4 s / 1 s by default, against the default 15 s bound", () => {
    expect(parseConfig(watcherConfigSchema, base)).toMatchObject({
      ok: true,
      config: { HEARTBEAT_INTERVAL: 3_000, STATE_MAX_AGE: 15_000, LEADER_ELECTION: true, LEADER_ELECTION_LEASE_DURATION: 6_000, LEADER_ELECTION_RENEW_DEADLINE: 4_000, LEADER_ELECTION_RETRY_PERIOD: 1_000 },
    });
  });

  it("refuses election timings whose worst-case failover outlasts STATE_MAX_AGE, and a renew deadline that does not fence", () => {
    expect(parseConfig(watcherConfigSchema, { ...base, LEADER_ELECTION_LEASE_DURATION: "15s", LEADER_ELECTION_RENEW_DEADLINE: "10s", LEADER_ELECTION_RETRY_PERIOD: "2s" })).toEqual({
      ok: false,
      errors: ["LEADER_ELECTION_LEASE_DURATION: HEARTBEAT_INTERVAL + LEADER_ELECTION_LEASE_DURATION + 2 × LEADER_ELECTION_RETRY_PERIOD (22000ms) must be below STATE_MAX_AGE (15000ms), or a watcher crash makes every consumer's view stale before another replica takes over"],
    });
    // One replica, no election: the bound does not apply.
    expect(parseConfig(watcherConfigSchema, { ...base, LEADER_ELECTION: "false", LEADER_ELECTION_LEASE_DURATION: "15s", LEADER_ELECTION_RENEW_DEADLINE: "10s" })).toMatchObject({ ok: true });
    expect(parseConfig(watcherConfigSchema, { ...base, LEADER_ELECTION_RENEW_DEADLINE: "6s" })).toMatchObject({
      ok: false,
      errors: ["LEADER_ELECTION_RENEW_DEADLINE: must be shorter than LEADER_ELECTION_LEASE_DURATION (6000ms), or two replicas could act at once"],
    });
  });

  it("refuses an interval that one missed beat would turn into a stale state plane", () => {
    expect(parseConfig(watcherConfigSchema, { ...base, HEARTBEAT_INTERVAL: "10s", LEADER_ELECTION: "false" })).toEqual({
      ok: false,
      errors: ["HEARTBEAT_INTERVAL: must be at most half of STATE_MAX_AGE (15000ms), so one missed heartbeat does not make the state plane stale"],
    });
    expect(parseConfig(watcherConfigSchema, { ...base, HEARTBEAT_INTERVAL: "500ms", STATE_MAX_AGE: "2s", LEADER_ELECTION: "false" })).toMatchObject({ ok: true });
    expect(parseConfig(watcherConfigSchema, { ...base, HEARTBEAT_INTERVAL: "10ms" })).toMatchObject({ ok: false, errors: ["HEARTBEAT_INTERVAL: must be at least 100ms"] });
  });

  it("times watches out after 10 s and declares one silent for 15 s hung, and refuses an idle bound a quiet watch would trip", () => {
    const r = parseConfig(watcherConfigSchema, base);
    if (!r.ok) throw new Error(r.errors.join("; "));
    expect(watchSettings(r.config)).toEqual({ watchTimeoutSeconds: 10, idleTimeoutMs: 15_000 });
    expect(parseConfig(watcherConfigSchema, { ...base, WATCH_TIMEOUT: "20s" })).toEqual({
      ok: false,
      errors: ["WATCH_IDLE_TIMEOUT: must be longer than WATCH_TIMEOUT (20000ms), or every healthy but quiet watch is declared hung before the server ends it"],
    });
    expect(parseConfig(watcherConfigSchema, { ...base, WATCH_TIMEOUT: "1500ms" })).toMatchObject({ ok: false, errors: ["WATCH_TIMEOUT: must be a whole number of seconds, at least 1s (it is the watch's timeoutSeconds)"] });
    expect(parseConfig(watcherConfigSchema, { ...base, WATCH_TIMEOUT: "2s", WATCH_IDLE_TIMEOUT: "3s" })).toMatchObject({ ok: true });
  });

  it("publishes every disruptor's signals from kured's default DaemonSet unless told otherwise", () => {
    const r = parseConfig(watcherConfigSchema, base);
    if (!r.ok) throw new Error(r.errors.join("; "));
    expect(signalSettings(r.config)).toEqual({
      signalSources: ["nodemaintenance", "selfnoderemediation", "fenceagentsremediation", "kured", "machine", "machineconfig"],
      kured: { namespace: "kube-system", name: "kured", annotation: "weave.works/kured-node-lock" },
    });
    const none = parseConfig(watcherConfigSchema, { ...base, SIGNAL_SOURCES: "none" });
    if (!none.ok) throw new Error(none.errors.join("; "));
    expect(signalSettings(none.config).signalSources).toEqual([]);
  });

  it("lists every bad signal setting at once", () => {
    expect(parseConfig(watcherConfigSchema, { ...base, SIGNAL_SOURCES: "kured,nmo,none", KURED_NAMESPACE: "Kube_System", KURED_DAEMONSET: "kured", KURED_LOCK_ANNOTATION: "not a key" })).toEqual({
      ok: false,
      errors: [
        'SIGNAL_SOURCES: unknown source "nmo" (known: nodemaintenance, selfnoderemediation, fenceagentsremediation, kured, machine, machineconfig, or none alone)',
        'SIGNAL_SOURCES: unknown source "none" (known: nodemaintenance, selfnoderemediation, fenceagentsremediation, kured, machine, machineconfig, or none alone)',
        'KURED_NAMESPACE: "Kube_System" is not a DNS-1123 label',
        'KURED_LOCK_ANNOTATION: "not a key" is not an annotation key',
      ],
    });
  });
});
