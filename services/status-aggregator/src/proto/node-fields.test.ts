import { GetUpdateStatusResponse, type NodeInsight } from "@lockstep/contracts";
import { describe, expect, it } from "vitest";
import { encodeGetUpdateStatusResponse, encodeNodeField, withNodeFields } from "./fast-encode.js";
import { NodeFieldCache } from "./node-fields.js";

const node = (name: string, message: string): NodeInsight => ({
  name,
  pool: "worker",
  scopeType: "WorkerPool",
  version: "4.16.1",
  estimatedToComplete: "",
  estimatedToCompletePresent: false,
  message,
  conditions: [],
  record: undefined,
});

describe("NodeFieldCache", () => {
  it("remembers a change only for a node it holds: others are encoded when first asked for anyway", () => {
    const cache = new NodeFieldCache();
    const world = new Map([["a", node("a", "one")], ["c", node("c", "three")]]);
    const encoded: string[] = [];
    const encode = (n: string) => (encoded.push(n), encodeNodeField(world.get(n)!));
    const names = ["a", "c"];
    const blob = cache.bytes(names, encode);
    // Nodes that appeared and left between two answers: nothing to re-encode, the same buffer.
    for (const gone of ["b", "d", "0", "zz"]) cache.changed(gone);
    expect(cache.bytes(names, encode)).toBe(blob);
    cache.changed("c");
    world.set("c", node("c", "changed"));
    expect(cache.bytes(names, encode)).toEqual(Buffer.concat(names.map((n) => encodeNodeField(world.get(n)!))));
    expect(encoded).toEqual(["a", "c", "c"]);
  });

  it("concatenates name-ordered node fields, re-encoding only changed and new nodes", () => {
    const cache = new NodeFieldCache();
    let world = new Map([["a", node("a", "one")], ["b", node("b", "two")], ["d", node("d", "four")]]);
    const encoded: string[] = [];
    const encode = (n: string) => (encoded.push(n), encodeNodeField(world.get(n)!));
    const first = ["a", "b", "d"];
    const blob = cache.bytes(first, encode);
    expect(blob).toEqual(Buffer.concat(first.map((n) => encodeNodeField(world.get(n)!))));
    expect(encoded).toEqual(["a", "b", "d"]);
    expect(cache.bytes(first, encode)).toBe(blob); // nothing changed: the same buffer

    // "b" changed, "c" and "e" are new, "a" and "d" are reused even if their objects differ.
    encoded.length = 0;
    world = new Map([["a", node("a", "stale object, cached bytes win")], ["b", node("b", "changed")], ["c", node("c", "new")], ["d", node("d", "x".repeat(300))], ["e", node("e", "new too")]]);
    cache.changed("b");
    cache.changed("c");
    cache.changed("e");
    const next = cache.bytes(["a", "b", "c", "d", "e"], encode);
    expect(encoded).toEqual(["b", "c", "e"]);
    const expected = [node("a", "one"), node("b", "changed"), node("c", "new"), node("d", "four"), node("e", "new too")];
    expect(next).toEqual(Buffer.concat(expected.map(encodeNodeField)));

    // "a" and "c" removed, "b" unchanged after them: reused from the new offsets.
    encoded.length = 0;
    const third = cache.bytes(["b", "d", "e"], encode);
    expect(encoded).toEqual([]);
    expect(third).toEqual(Buffer.concat([expected[1]!, expected[3]!, expected[4]!].map(encodeNodeField)));
    const status = { updating: true, pools: [], nodes: [], health: [], healthFallback: true, revision: "1", now: undefined };
    const decoded = GetUpdateStatusResponse.decode(encodeGetUpdateStatusResponse(withNodeFields({ status }, third)));
    expect(decoded.status!.nodes.map((n) => [n.name, n.message])).toEqual([["b", "changed"], ["d", "four"], ["e", "new too"]]);
  });

  it("starts empty", () => {
    expect(new NodeFieldCache().bytes([], () => Buffer.alloc(0)).length).toBe(0);
  });
});
