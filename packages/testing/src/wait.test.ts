import { describe, expect, it } from "vitest";
import { waitFor } from "./wait.js";

describe("waitFor", () => {
  it("returns the first truthy value", async () => {
    let n = 0;
    await expect(waitFor(() => ++n >= 3 && n, { intervalMs: 1 })).resolves.toBe(3);
  });

  it("times out naming what it waited for, the check's last error and the explanation", async () => {
    const failing = () => {
      throw new Error("not yet");
    };
    await expect(waitFor(failing, { timeoutMs: 20, intervalMs: 5, what: "the pool", explain: () => "2 of 3 nodes updated" })).rejects.toThrow(
      "timed out waiting for the pool: not yet\n2 of 3 nodes updated",
    );
  });

  it("says what explaining failed with instead of the explanation", async () => {
    await expect(waitFor(() => false, { timeoutMs: 10, intervalMs: 5, explain: () => Promise.reject(new Error("gone")) })).rejects.toThrow(
      "timed out waiting for condition\nError: gone",
    );
  });
});
