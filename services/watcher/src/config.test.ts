import { parseConfig } from "@lockstep/runtime";
import { describe, expect, it } from "vitest";
import { signalSettings, watcherConfigSchema } from "./config.js";

const base = { NATS_URL: "nats://127.0.0.1:4222" };

describe("watcher config", () => {
  it("beats every 5 s by default, against the default 15 s bound", () => {
    expect(parseConfig(watcherConfigSchema, base)).toMatchObject({ ok: true, config: { HEARTBEAT_INTERVAL: 5_000, STATE_MAX_AGE: 15_000 } });
  });

  it("refuses an interval that one missed beat would turn into a stale state plane", () => {
    expect(parseConfig(watcherConfigSchema, { ...base, HEARTBEAT_INTERVAL: "10s" })).toEqual({
      ok: false,
      errors: ["HEARTBEAT_INTERVAL: must be at most half of STATE_MAX_AGE (15000ms), so one missed heartbeat does not make the state plane stale"],
    });
    expect(parseConfig(watcherConfigSchema, { ...base, HEARTBEAT_INTERVAL: "500ms", STATE_MAX_AGE: "2s" })).toMatchObject({ ok: true });
    expect(parseConfig(watcherConfigSchema, { ...base, HEARTBEAT_INTERVAL: "10ms" })).toMatchObject({ ok: false, errors: ["HEARTBEAT_INTERVAL: must be at least 100ms"] });
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
