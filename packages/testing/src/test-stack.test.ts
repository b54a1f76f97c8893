import { describe, expect, it } from "vitest";
import { TestStack } from "./test-stack.js";

describe("TestStack", () => {
  it("stops runnables first, then the rest in reverse order of start, and only once", async () => {
    const stack = new TestStack();
    const order: string[] = [];
    stack.add({ stop: async () => order.push("server a") });
    stack.run({ start: (signal) => new Promise<void>((r) => signal.addEventListener("abort", () => (order.push("runnable"), r()))) });
    stack.defer(() => order.push("client b"));
    await stack.close();
    await stack.close();
    expect(order).toEqual(["runnable", "client b", "server a"]);
    expect(stack.signal.aborted).toBe(true);
  });

  it("runs every teardown step even when one fails, then reports the failure", async () => {
    const stack = new TestStack();
    const stopped: string[] = [];
    stack.add({ stop: () => stopped.push("first") });
    stack.defer(() => {
      throw new Error("boom");
    });
    stack.run({ start: () => Promise.reject(new Error("runnable failed")) });
    stack.run({ start: (signal) => new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason))) });
    const err = await stack.close().catch((e: AggregateError) => e);
    expect(err).toBeInstanceOf(AggregateError);
    expect((err as AggregateError).errors.map((e: Error) => e.message)).toEqual(["runnable failed", "boom"]);
    expect(stopped).toEqual(["first"]);
  });

  it("ends a runnable on its own signal without closing the stack", async () => {
    const stack = new TestStack();
    const own = new AbortController();
    const running = stack.run({ start: (signal) => new Promise<void>((r) => signal.addEventListener("abort", () => r())) }, own.signal);
    own.abort();
    await running;
    expect(stack.signal.aborted).toBe(false);
    await stack.close();
  });

  it("starts a real nats-server and stops it at close", async () => {
    const stack = new TestStack();
    const nats = await stack.nats();
    expect(nats.url).toMatch(/^nats:\/\/127\.0\.0\.1:\d+$/);
    await stack.close();
  });
});
