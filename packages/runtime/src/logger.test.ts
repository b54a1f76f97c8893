import { describe, expect, it } from "vitest";
import { createLogger } from "./logger.js";

function capture() {
  const lines: Array<Record<string, unknown>> = [];
  return { lines, destination: { write: (s: string) => void lines.push(JSON.parse(s)) } };
}

describe("createLogger", () => {
  it("writes JSON lines with service, pid, level label and structured fields", () => {
    const { lines, destination } = capture();
    const log = createLogger({ service: "skew-enforcer", level: "debug", destination });
    log.child({ component: "gate" }).debug({ pool: "worker" }, "pool evaluated");
    log.trace("too verbose");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      service: "skew-enforcer",
      pid: process.pid,
      level: "debug",
      component: "gate",
      pool: "worker",
      msg: "pool evaluated",
    });
    expect(typeof lines[0]!.time).toBe("string");
  });

  it("redacts secrets at the top level and one level down", () => {
    const { lines, destination } = capture();
    const log = createLogger({ service: "t", destination });
    log.info(
      {
        token: "abc",
        config: { NATS_PASSWORD: "hunter2", NATS_URL: ["nats://x"] },
        req: { headers: { authorization: "Bearer xyz" } },
        user: { password: "p" },
      },
      "started",
    );
    const text = JSON.stringify(lines[0]);
    for (const secret of ["abc", "hunter2", "Bearer xyz", '"p"']) expect(text).not.toContain(secret);
    expect(lines[0]).toMatchObject({ token: "[redacted]", config: { NATS_URL: ["nats://x"] } });
  });

  it("serialises errors under err", () => {
    const { lines, destination } = capture();
    createLogger({ service: "t", destination }).error({ err: new Error("kaput") }, "reconcile failed");
    expect(lines[0]).toMatchObject({ level: "error", err: { type: "Error", message: "kaput" } });
    expect(String((lines[0]!.err as { stack: string }).stack)).toContain("kaput");
  });
});
