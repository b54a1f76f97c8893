import { describe, expect, it } from "vitest";
import { applyMergePatch, createMergePatch, type JsonObject } from "./merge-patch.js";

describe("createMergePatch", () => {
  const cases: { name: string; a: JsonObject; b: JsonObject; patch: JsonObject }[] = [
    { name: "identical", a: { x: 1, y: { z: [1, 2] } }, b: { x: 1, y: { z: [1, 2] } }, patch: {} },
    { name: "changed scalar", a: { x: 1, y: 2 }, b: { x: 1, y: 3 }, patch: { y: 3 } },
    { name: "nested change", a: { ami: { id: "a" }, k: 1 }, b: { ami: { id: "b" }, k: 1 }, patch: { ami: { id: "b" } } },
    { name: "removed key becomes null", a: { ami: { id: "a", arn: "x" } }, b: { ami: { id: "b" } }, patch: { ami: { id: "b", arn: null } } },
    { name: "added key", a: {}, b: { t: "n" }, patch: { t: "n" } },
    {
      name: "array replaced whole",
      a: { disks: [{ boot: true, image: "a" }, { boot: false }] },
      b: { disks: [{ boot: true, image: "b" }, { boot: false }] },
      patch: { disks: [{ boot: true, image: "b" }, { boot: false }] },
    },
    { name: "object replaced by scalar", a: { o: { p: 1 } }, b: { o: "s" }, patch: { o: "s" } },
  ];
  it.each(cases)("$name", ({ a, b, patch }) => {
    const got = createMergePatch(a, b);
    expect(got).toEqual(patch);
    expect(applyMergePatch(a, got)).toEqual(b);
  });
});
