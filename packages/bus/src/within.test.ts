import { describe, expect, it } from "vitest";
import { within } from "./within.js";

describe("within", () => {
  it("passes on a prompt value", async () => {
    expect(await within(1_000, Promise.resolve(7), "seven")).toBe(7);
  });

  it("rejects after the bound, naming what was asked, and hands a late value to onLate", async () => {
    let resolve!: (v: string) => void;
    const p = new Promise<string>((r) => (resolve = r));
    const lateValues: string[] = [];
    await expect(within(20, p, "the watch", (v) => lateValues.push(v))).rejects.toThrow("the watch: no answer within 20 ms");
    resolve("watch-1");
    await p;
    await new Promise((r) => setImmediate(r));
    expect(lateValues).toEqual(["watch-1"]);
  });

  it("passes a prompt rejection on, and swallows a late one", async () => {
    await expect(within(1_000, Promise.reject(new Error("refused")), "x")).rejects.toThrow("refused");
    let reject!: (e: Error) => void;
    const p = new Promise<never>((_, r) => (reject = r));
    await expect(within(10, p, "x")).rejects.toThrow("no answer");
    reject(new Error("too late")); // must not surface as an unhandled rejection
    await new Promise((r) => setTimeout(r, 10));
  });
});
