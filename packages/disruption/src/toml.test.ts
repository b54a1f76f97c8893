import { describe, expect, it } from "vitest";
import { parseToml, TomlError } from "./toml.js";

describe("parseToml", () => {
  it("reads a registries.conf v2 document", () => {
    const doc = parseToml(`
# generated
unqualified-search-registries = ["registry.access.redhat.com", 'docker.io']
short-name-mode = ""

[[registry]]
  prefix = ""
  location = "quay.io/a"
  mirror-by-digest-only = true

  [[registry.mirror]]
    location = "m1.example.com/a" # first
    pull-from-mirror = "digest-only"

  [[registry.mirror]]
    location = "m2.example.com/a"

[[registry]]
  location = "quay.io/b"
  blocked = true
`);
    expect(doc).toEqual({
      "unqualified-search-registries": ["registry.access.redhat.com", "docker.io"],
      "short-name-mode": "",
      registry: [
        {
          prefix: "",
          location: "quay.io/a",
          "mirror-by-digest-only": true,
          mirror: [{ location: "m1.example.com/a", "pull-from-mirror": "digest-only" }, { location: "m2.example.com/a" }],
        },
        { location: "quay.io/b", blocked: true },
      ],
    });
  });

  it("reads multi-line arrays with comments and a trailing comma, inline tables, dotted keys and numbers", () => {
    const doc = parseToml(`a = [
  "x", # one
  "y",
]
t = { k = 1, s.u = "v" }
d.e.f = -2_000
g = 1.5e2
h = 0x1F
[aliases]
"quoted key" = 'C:\\no\\escapes'
`);
    expect(doc).toEqual({
      a: ["x", "y"],
      t: { k: 1, s: { u: "v" } },
      d: { e: { f: -2000 } },
      g: 150,
      h: 31,
      aliases: { "quoted key": "C:\\no\\escapes" },
    });
  });

  it("decodes escapes in basic strings", () => {
    expect(parseToml(String.raw`s = "a\"b\\c\n\t\u00e9\U0001F600"`)).toEqual({ s: 'a"b\\c\n\té😀' });
  });

  it("reads CRLF line endings and an empty document", () => {
    expect(parseToml('a = 1\r\nb = "x"\r\n')).toEqual({ a: 1, b: "x" });
    expect(parseToml("")).toEqual({});
    expect(parseToml("# only a comment\n\n")).toEqual({});
  });

  it.each([
    ["a = 1\na = 2", 2, "duplicate key"],
    ['a = "open', 1, "unterminated string"],
    ["[t]\nx = 1\n[t]\ny = 2", 3, "defined twice"],
    ['a = """x"""', 1, "multi-line strings are not supported"],
    ["a = 1979-05-27", 1, "date-time values are not supported"],
    ["a = [1, 2", 1, "unterminated array"],
    ["a = ", 1, "missing value"],
    ["a 1", 1, 'expected "="'],
    ["a\nb = 1", 1, 'expected "="'],
    ["[[r\n", 1, "unterminated table header"],
    ["a = 1 b = 2", 1, "after value"],
    ["a = 1\n[[a]]", 2, "not an array of tables"],
    ["a = 1\n[a.b]", 2, "already a value"],
    ['a = "\\q"', 1, "invalid escape"],
    ["[a", 1, "unterminated table header"],
    ["a = nope", 1, "invalid value"],
  ])("rejects %j at line %i", (text, line, message) => {
    let err: unknown;
    try {
      parseToml(text);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(TomlError);
    expect((err as TomlError).line).toBe(line);
    expect((err as TomlError).message).toContain(message);
  });
});
