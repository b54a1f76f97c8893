import { describe, expect, it } from "vitest";
import { checkHotLoop, hotLoopMessage, recordPatch, type HotLoopState } from "./hot-loop.js";

describe("hot-loop guard", () => {
  it("allows three patches to the same value and refuses the fourth", () => {
    let s: HotLoopState = {};
    const attempts: (string | undefined)[] = [];
    for (let i = 0; i < 4; i++) {
      const refusal = checkHotLoop(s, "worker-a", "v2");
      attempts.push(refusal);
      if (!refusal) s = recordPatch(s, "worker-a", "v2");
    }
    expect(attempts).toEqual([undefined, undefined, undefined, hotLoopMessage("worker-a")]);
    expect(s["worker-a"]).toEqual({ value: "v2", count: 3 });
  });
  it("a different value restarts the count", () => {
    let s: HotLoopState = { "worker-a": { value: "v1", count: 3 } };
    expect(checkHotLoop(s, "worker-a", "v2")).toBeUndefined();
    s = recordPatch(s, "worker-a", "v2");
    expect(s["worker-a"]).toEqual({ value: "v2", count: 1 });
  });
  it("is per MachineSet", () => {
    const s: HotLoopState = { "worker-a": { value: "v", count: 3 } };
    expect(checkHotLoop(s, "worker-b", "v")).toBeUndefined();
  });
  it("uses upstream's message", () => {
    expect(hotLoopMessage("ms-1")).toBe(
      "refusing to reconcile machineset ms-1, hot loop detected. Please opt-out of boot image updates, adjust your machine provisioning workflow to prevent hot loops and opt back in to resume boot image updates",
    );
  });
});
