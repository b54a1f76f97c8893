import { describe, expect, it } from "vitest";
import { parseRegistriesConf, RegistriesConfError, registriesTextChangeSafety, type RegistriesConf } from "./registries.js";
import { ART, BASE_REGISTRIES, RELEASE, SEARCH, registriesConf, type RegistrySpec } from "./__fixtures__/registries.js";

const conf = (regs: RegistrySpec[], search = SEARCH): string => registriesConf(search, regs);

describe("parseRegistriesConf", () => {
  it("maps registries and mirrors with defaults for absent fields", () => {
    const parsed: RegistriesConf = parseRegistriesConf(
      conf([{ prefix: "p.io", location: RELEASE, mirrorByDigestOnly: true, mirrors: [{ location: "m.io/x", pullFromMirror: "tag-only", insecure: true }] }]),
    );
    expect(parsed).toEqual({
      unqualifiedSearchRegistries: SEARCH,
      registries: [
        {
          prefix: "p.io",
          location: RELEASE,
          blocked: false,
          insecure: false,
          mirrorByDigestOnly: true,
          mirrors: [{ location: "m.io/x", insecure: true, pullFromMirror: "tag-only" }],
        },
      ],
    });
  });

  it.each([
    ["broken TOML", "[[registry]\n", "cannot parse registries.conf"],
    ["wrong type", 'unqualified-search-registries = "docker.io"', "unqualified-search-registries must be an array of strings"],
    ["registry not a table array", "registry = 1", ".registry must be an array of tables"],
    ["blocked not boolean", '[[registry]]\nlocation = "a"\nblocked = "yes"', "registry[0].blocked must be a boolean"],
  ])("rejects %s", (_name, text, message) => {
    expect(() => parseRegistriesConf(text)).toThrow(RegistriesConfError);
    expect(() => parseRegistriesConf(text)).toThrow(message);
  });
});

// mco-behaviors.md §2.9: rule 1–4 and the table of usual changes.
describe("registriesTextChangeSafety", () => {
  const base = conf(BASE_REGISTRIES);
  const digestMirror = (location: string) => ({ location, pullFromMirror: "digest-only" });
  const cases: Array<{ name: string; next: string; prev?: string; safe: boolean; reason?: string }> = [
    {
      name: "add an IDMS/ICSP mirror to an existing source (4.13+)",
      next: conf([{ location: RELEASE, mirrors: [digestMirror("mirror.example.com/ocp/release"), digestMirror("m2.example.com/release")] }]),
      safe: true,
    },
    {
      name: "add a new IDMS/ICSP source with digest-only mirrors",
      next: conf([...BASE_REGISTRIES, { location: ART, mirrors: [digestMirror("mirror.example.com/ocp/art")] }]),
      safe: true,
    },
    {
      name: "add a mirror to an existing old-style registry (mirror-by-digest-only)",
      prev: conf([{ location: RELEASE, mirrorByDigestOnly: true, mirrors: [{ location: "a.io/r" }] }]),
      next: conf([{ location: RELEASE, mirrorByDigestOnly: true, mirrors: [{ location: "a.io/r" }, { location: "b.io/r" }] }]),
      safe: true,
    },
    {
      name: "add a new old-style registry (flag set, mirrors without pull-from-mirror)",
      next: conf([...BASE_REGISTRIES, { location: ART, mirrorByDigestOnly: true, mirrors: [{ location: "a.io/art" }] }]),
      safe: false,
      reason: 'new registry "quay.io/openshift-release-dev/ocp-v4.0-art-dev": mirror "a.io/art" is not digest-only',
    },
    {
      name: "add an ITMS mirror (tag-only) to an existing source",
      next: conf([{ location: RELEASE, mirrors: [digestMirror("mirror.example.com/ocp/release"), { location: "t.io/r", pullFromMirror: "tag-only" }] }]),
      safe: false,
      reason: 'added mirror "t.io/r" is not digest-only',
    },
    {
      name: "add an ITMS source",
      next: conf([...BASE_REGISTRIES, { location: ART, mirrors: [{ location: "t.io/art", pullFromMirror: "tag-only" }] }]),
      safe: false,
    },
    {
      name: "remove a mirror",
      prev: conf([{ location: RELEASE, mirrors: [digestMirror("a.io/r"), digestMirror("b.io/r")] }]),
      next: conf([{ location: RELEASE, mirrors: [digestMirror("a.io/r")] }]),
      safe: false,
      reason: 'mirror "b.io/r" was removed',
    },
    { name: "remove a source", next: conf([]), safe: false, reason: "was removed" },
    { name: "reorder the search registries", next: conf(BASE_REGISTRIES, [...SEARCH].reverse()), safe: false, reason: "unqualified-search-registries" },
    { name: "remove a search registry", next: conf(BASE_REGISTRIES, SEARCH.slice(0, 1)), safe: false, reason: "unqualified-search-registries" },
    { name: "append a search registry", next: conf(BASE_REGISTRIES, [...SEARCH, "quay.io"]), safe: true },
    {
      name: "toggle blocked",
      next: conf([{ ...BASE_REGISTRIES[0]!, blocked: true }]),
      safe: false,
      reason: "blocked changed",
    },
    {
      name: "toggle insecure",
      next: conf([{ ...BASE_REGISTRIES[0]!, insecure: true }]),
      safe: false,
      reason: "insecure changed",
    },
    {
      name: "change a mirror's pull-from-mirror to digest-only",
      prev: conf([{ location: RELEASE, mirrors: [{ location: "a.io/r", pullFromMirror: "all" }] }]),
      next: conf([{ location: RELEASE, mirrors: [digestMirror("a.io/r")] }]),
      safe: true,
    },
    {
      name: "change a mirror's pull-from-mirror to tag-only",
      next: conf([{ location: RELEASE, mirrors: [{ location: "mirror.example.com/ocp/release", pullFromMirror: "tag-only" }] }]),
      safe: false,
      reason: 'pull-from-mirror changed to "tag-only"',
    },
    {
      name: "new registry without mirrors and without mirror-by-digest-only (e.g. a blocked registry)",
      next: conf([...BASE_REGISTRIES, { location: "evil.io", blocked: true }]),
      safe: false,
      reason: "has no mirrors and is not mirror-by-digest-only",
    },
    {
      name: "new registry without mirrors but mirror-by-digest-only",
      next: conf([...BASE_REGISTRIES, { location: "x.io", mirrorByDigestOnly: true }]),
      safe: true,
    },
    {
      name: "registries keyed by prefix: changing location under the same prefix",
      prev: conf([{ prefix: "p.io", location: "a.io", mirrors: [digestMirror("m.io")] }]),
      next: conf([{ prefix: "p.io", location: "b.io", mirrors: [digestMirror("m.io")] }]),
      safe: false,
      reason: "prefix or location changed",
    },
    {
      name: "a mirror's insecure flag is not checked (upstream gap)",
      next: conf([{ location: RELEASE, mirrors: [{ location: "mirror.example.com/ocp/release", pullFromMirror: "digest-only", insecure: true }] }]),
      safe: true,
    },
    { name: "first registries.conf (old file absent) with a digest-only source", prev: undefined, next: base, safe: true },
  ];

  it.each(cases)("$name → safe=$safe", ({ prev, next, safe, reason, name }) => {
    const old = name.startsWith("first registries.conf") ? undefined : (prev ?? base);
    const result = registriesTextChangeSafety(old, next);
    expect(result.safe).toBe(safe);
    expect(result.reasons.length === 0).toBe(safe);
    if (reason) expect(result.reasons.join("\n")).toContain(reason);
  });

  it("an identical file is safe, and every problem is listed", () => {
    expect(registriesTextChangeSafety(base, base)).toEqual({ safe: true, reasons: [] });
    const worse = registriesTextChangeSafety(base, conf([{ location: "other.io", blocked: true }], []));
    expect(worse.reasons).toHaveLength(3);
  });

  it("undecodable contents throw", () => {
    expect(() => registriesTextChangeSafety(base, "[[registry")).toThrow(RegistriesConfError);
  });
});
