import { describe, expect, it } from "vitest";
import { cleanPath, closestFileRule } from "./match.js";
import type { EffectiveFileRule } from "./types.js";

const rule = (path: string, i: number): EffectiveFileRule => ({ path, actions: [{ type: "None" }], source: { policy: "p", default: false, rule: `spec.files[${i}]` } });
const rules = (...paths: string[]) => paths.map(rule);

describe("cleanPath (Go path.Clean)", () => {
  it.each([
    ["/etc//containers/", "/etc/containers"],
    ["/etc/./a/../b", "/etc/b"],
    ["/../etc", "/etc"],
    ["a/../../b", "../b"],
    ["", "."],
    ["/", "/"],
    ["./", "."],
  ])("%j → %j", (p, c) => expect(cleanPath(p)).toBe(c));
});

describe("closestFileRule", () => {
  it.each([
    ["exact match", rules("/etc/a.conf"), "/etc/a.conf", "/etc/a.conf"],
    ["directory prefix", rules("/etc/example"), "/etc/example/a.conf", "/etc/example"],
    ["deep directory prefix", rules("/etc/example"), "/etc/example/x/y/z", "/etc/example"],
    ["no match across a name boundary", rules("/etc/example"), "/etc/examples.conf", undefined],
    ["a directory rule does not match the directory itself as a prefix of a sibling", rules("/etc/example/test"), "/etc/example/test2", undefined],
    ["longest raw path wins", rules("/etc", "/etc/example", "/etc/example/test"), "/etc/example/test", "/etc/example/test"],
    ["longest wins regardless of rule order", rules("/etc/example/test", "/etc/example"), "/etc/example/test/x", "/etc/example/test"],
    ["prefix match on cleaned paths", rules("/etc//example/"), "/etc/example/./a", "/etc//example/"],
    ["an unclean file path matches a clean rule", rules("/etc/example"), "/etc//example/../example/a", "/etc/example"],
    ["exact is on raw strings", rules("/etc/a/"), "/etc/a/", "/etc/a/"],
    ["no rules", [], "/etc/a", undefined],
  ])("%s", (_name, rs, path, expected) => {
    expect(closestFileRule(path, rs)?.path).toBe(expected);
  });

  it("on equal raw length the earlier rule wins", () => {
    const rs = rules("/etc/abc/", "/etc//abc");
    expect(closestFileRule("/etc/abc/x", rs)?.source.rule).toBe("spec.files[0]");
    expect(closestFileRule("/etc/abc/x", [...rs].reverse())?.source.rule).toBe("spec.files[1]");
  });
});
