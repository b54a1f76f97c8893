// Which rule applies to a changed file or unit (mco-behaviors.md §2.6, upstream pkg/controller/common/helpers.go).
import type { EffectiveFileRule, EffectiveRules, EffectiveUnitRule } from "./types.js";

/** Lexical path cleaning as Go's path.Clean: collapse `//`, resolve `.` and `..`, drop a trailing `/`. */
export function cleanPath(p: string): string {
  if (p === "") return ".";
  const rooted = p.startsWith("/");
  const out: string[] = [];
  for (const seg of p.split("/")) {
    if (seg === "" || seg === ".") continue;
    if (seg === "..") {
      if (out.length > 0 && out[out.length - 1] !== "..") out.pop();
      else if (!rooted) out.push("..");
      continue;
    }
    out.push(seg);
  }
  const joined = out.join("/");
  if (rooted) return `/${joined}`;
  return joined === "" ? "." : joined;
}

/**
 * The closest file rule: an exact raw-string match, or a rule whose cleaned path plus "/" prefixes the
 * cleaned file path (directory boundaries only). The longest raw rule path wins; ties go to the earlier rule.
 */
export function closestFileRule(path: string, files: readonly EffectiveFileRule[]): EffectiveFileRule | undefined {
  const cleaned = cleanPath(path);
  let best: EffectiveFileRule | undefined;
  for (const rule of files) {
    const matches = rule.path === path || cleaned.startsWith(withSlash(cleanPath(rule.path)));
    if (matches && (best === undefined || rule.path.length > best.path.length)) best = rule;
  }
  return best;
}

// Go's clean("/") is "/", and "/" + "/" would never prefix anything; upstream behaves the same, so keep it.
const withSlash = (p: string): string => `${p}/`;

/** The first unit rule with exactly this name. */
export function unitRule(name: string, rules: EffectiveRules): EffectiveUnitRule | undefined {
  return rules.units.find((u) => u.name === name);
}
