import { describe, expect, it } from "vitest";
import { changeField, getIn, places, setIn, type Vocabulary } from "./field-changes.js";

const vocabulary: Vocabulary = { words: (k) => (k === "state" ? ["Done", "Working"] : ["a", "b"]), maps: new Set(["labels"]), mapKeys: ["role"], dates: [new Date(0)] };
const template = { name: "n", state: "Done", labels: { role: "x" }, spec: { paused: false, at: new Date(0) }, items: [{ v: "a" }] };

describe("field changes", () => {
  it("lists every place a change can touch, the name included (changeField keeps it)", () => {
    const ps = places({ name: "n", state: "Done", items: [] }, template, vocabulary.maps).map((p) => `${p.kind} ${p.path.join(".")}`);
    expect(ps).toEqual(["leaf name", "leaf state", "map labels", "optional spec", "array items"]);
  });

  it("sets, copies along the path and shares the rest", () => {
    const v = { a: { b: 1 }, c: { d: 2 } };
    const w = setIn(v, ["a", "b"], () => 3) as typeof v;
    expect(w).toEqual({ a: { b: 3 }, c: { d: 2 } });
    expect(w.c).toBe(v.c);
    expect(getIn(w, ["a", "b"])).toBe(3);
    expect(setIn(v, ["a", "b"], () => undefined)).toEqual({ a: {}, c: { d: 2 } });
  });

  it("always changes something and never the name, for every draw", () => {
    const root = { name: "n", state: "Done", labels: { role: "x" }, spec: { paused: false, at: new Date(0) }, items: [{ v: "a" }] };
    let changed = 0;
    for (let where = 0; where < 12; where++)
      for (let how = 0; how < 4; how++) {
        const next = changeField(root, template, { where, how, what: 1 }, vocabulary);
        expect(next.name).toBe("n");
        if (JSON.stringify(next) !== JSON.stringify(root)) changed++;
      }
    // Some draws are no-ops by design (an optional part kept, a missing map key deleted); most are not.
    expect(changed).toBeGreaterThan(24);
    expect(root.state).toBe("Done");
  });
});
