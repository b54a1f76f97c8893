import { parseConfig } from "@lockstep/runtime";
import { describe, expect, it } from "vitest";
import { watcherConfigSchema } from "./config.js";

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
});
