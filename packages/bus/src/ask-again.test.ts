import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { askAgainUntilAnswered } from "./ask-again.js";

/** An ask whose answers the test gives by hand, in any order. */
function asks<T>() {
  const made: Array<{ resolve(v: T): void; reject(e: Error): void }> = [];
  const ask = () => new Promise<T>((resolve, reject) => void made.push({ resolve, reject }));
  return { ask, made };
}

describe("askAgainUntilAnswered", () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  it("asks again every interval while unanswered, and takes the first answer, also of an earlier ask", async () => {
    const { ask, made } = asks<number>();
    const answer = askAgainUntilAnswered(ask, 500, 5);
    expect(made).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(made).toHaveLength(3);
    // The first ask, slow but answered: it counts (a bound would have cut it off).
    made[0]!.resolve(7);
    await expect(answer).resolves.toBe(7);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(made).toHaveLength(3);
  });

  it("goes on asking after a failure, and rejects only when every ask made has failed", async () => {
    const { ask, made } = asks<number>();
    const answer = askAgainUntilAnswered(ask, 500, 3);
    let outcome: unknown;
    answer.catch((e: Error) => (outcome = e.message));
    made[0]!.reject(new Error("no leader"));
    await vi.advanceTimersByTimeAsync(500);
    made[1]!.reject(new Error("no leader yet"));
    await vi.advanceTimersByTimeAsync(500);
    expect(made).toHaveLength(3);
    expect(outcome).toBeUndefined();
    made[2]!.reject(new Error("still no leader"));
    await vi.advanceTimersByTimeAsync(0);
    expect(outcome).toBe("still no leader");
  });

  it("waits for a pending ask after the last one failed", async () => {
    const { ask, made } = asks<string>();
    const answer = askAgainUntilAnswered(ask, 500, 2);
    await vi.advanceTimersByTimeAsync(500);
    made[1]!.reject(new Error("refused"));
    await vi.advanceTimersByTimeAsync(2_000);
    made[0]!.resolve("late but real");
    await expect(answer).resolves.toBe("late but real");
  });
});
