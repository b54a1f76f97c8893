import { describe, expect, it } from "vitest";
import { Chunked } from "./chunked.js";

describe("Chunked", () => {
  it("replaces entries in a copy, sharing every chunk without a replacement and leaving the original as it was", () => {
    const items = Array.from({ length: 1000 }, (_, i) => i);
    const a = Chunked.of(items);
    expect(a.length).toBe(1000);
    expect(a.toArray()).toEqual(items);
    expect(a.at(999)).toBe(999);
    const b = a.with([[3, -3], [700, -700], [5, -5]]);
    expect(b.at(3)).toBe(-3);
    expect(b.at(5)).toBe(-5);
    expect(b.at(700)).toBe(-700);
    expect(a.at(3)).toBe(3);
    expect(a.at(700)).toBe(700);
    // Chunks of 256: the second and fourth are shared, the first and third copied.
    expect(b.chunks[1]).toBe(a.chunks[1]);
    expect(b.chunks[3]).toBe(a.chunks[3]);
    expect(b.chunks[0]).not.toBe(a.chunks[0]);
    expect(b.chunks[2]).not.toBe(a.chunks[2]);
    expect(a.with([])).toBe(a);
  });

  it("holds nothing when made of nothing", () => {
    expect(Chunked.of([]).toArray()).toEqual([]);
    expect(Chunked.of([]).chunks).toEqual([]);
  });
});
