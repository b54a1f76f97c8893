import { describe, expect, it } from "vitest";
import { helmFunctions, toYaml } from "./functions.js";
import { createEngine, parseTemplate, TemplateError } from "./template.js";

function render(src: string, data: unknown, defs = ""): string {
  const parsed = parseTemplate(defs + src, "t.yaml");
  const engine = createEngine(parsed.defines, helmFunctions);
  return engine.render(parsed.main, data);
}

describe("Go text/template subset", () => {
  it("applies trim markers to the neighbouring whitespace only", () => {
    expect(render("a  {{- 1 -}}  b\n{{ 2 }} c", {})).toBe("a1b\n2 c");
    expect(render("x:\n  {{- /* note */}}\ny", {})).toBe("x:\ny");
  });

  it("passes a piped value as the last argument", () => {
    expect(render(`{{ "b" | printf "%s-%s" "a" }}`, {})).toBe("a-b");
    expect(render(`{{ .x | default "d" | quote }}`, { x: "" })).toBe('"d"');
    expect(render(`{{ .x | default 3 }}`, { x: 0 })).toBe("3");
  });

  it("reads a field of a parenthesised pipeline only when the field is glued to the parenthesis", () => {
    expect(render(`{{ (dict "a" "x").a }}`, {})).toBe("x");
    expect(render(`{{ printf "%s-%s" (print "a") .b }}`, { b: "B" })).toBe("a-B");
  });

  it("scopes variables to their block and keeps $ as the root", () => {
    const out = render(`{{ $a := "outer" }}{{ range .items }}{{ $a := . }}{{ $a }}{{ $.name }}{{ end }}{{ $a }}`, { items: ["x", "y"], name: "!" });
    expect(out).toBe("x!y!outer");
    expect(render(`{{ $a := 1 }}{{ if true }}{{ $a = 2 }}{{ end }}{{ $a }}`, {})).toBe("2");
  });

  it("ranges over maps in sorted key order with key and value", () => {
    expect(render(`{{ range $k, $v := .m }}{{ $k }}={{ $v }};{{ end }}`, { m: { b: 2, a: 1 } })).toBe("a=1;b=2;");
    expect(render(`{{ range .l }}x{{ else }}empty{{ end }}`, { l: [] })).toBe("empty");
  });

  it("follows Go truthiness in if, else if and with", () => {
    const t = `{{ if .a }}A{{ else if .b }}B{{ else }}C{{ end }}`;
    expect(render(t, { a: 1, b: 1 })).toBe("A");
    expect(render(t, { a: 0, b: "x" })).toBe("B");
    expect(render(t, { a: [], b: {} })).toBe("C");
    expect(render(`{{ with .m }}{{ .k }}{{ else }}none{{ end }}`, { m: { k: "v" } })).toBe("v");
    expect(render(`{{ with .m }}{{ .k }}{{ else }}none{{ end }}`, { m: {} })).toBe("none");
  });

  it("short-circuits and/or and returns the deciding operand", () => {
    expect(render(`{{ and .a .a.b }}`, { a: null })).toBe("");
    expect(render(`{{ or .a "fallback" }}`, { a: "" })).toBe("fallback");
    expect(render(`{{ if and .x (eq .y "z") }}yes{{ end }}`, { x: true, y: "z" })).toBe("yes");
  });

  it("renders defines through include with the given data", () => {
    const defs = `{{- define "greet" -}}hello {{ .who }}{{- end -}}`;
    expect(render(`{{ include "greet" (dict "who" .name) | upper }}`, { name: "ann" }, defs)).toBe("HELLO ANN");
  });

  it("fails on a field of nil, on unknown functions and on mismatched eq types, as Go does", () => {
    expect(() => render(`{{ .a.b }}`, {})).toThrow(/nil pointer evaluating .a.b/);
    expect(() => render(`{{ nope 1 }}`, {})).toThrow(/function "nope" not defined/);
    expect(() => render(`{{ eq 1 "1" }}`, {})).toThrow(/incompatible types/);
    expect(() => render(`{{ required "need x" .x }}`, {})).toThrow(/need x/);
    expect(() => render(`{{ if .a }}`, {})).toThrow(TemplateError);
  });

  it("rejects constructs outside the supported subset instead of ignoring them", () => {
    expect(() => render(`{{ range .l }}{{ break }}{{ end }}`, { l: [1] })).toThrow(/outside the renderer's supported subset/);
  });

  it("prints nil as empty (Helm's <no value> replacement) and numbers like Go", () => {
    expect(render(`[{{ .missing }}] {{ .n }} {{ .f }}`, { n: 3, f: 0.5 })).toBe("[] 3 0.5");
  });
});

describe("sprig and Helm functions", () => {
  it("indents and nindents every line", () => {
    expect(render(`x:{{ .s | nindent 2 }}`, { s: "a: 1\nb: 2" })).toBe("x:\n  a: 1\n  b: 2");
    expect(render(`{{ "a\\nb" | indent 4 }}`, {})).toBe("    a\n    b");
  });

  it("builds lists with append/concat and parses YAML with fromYaml", () => {
    expect(render(`{{ $l := list "a" }}{{ range .xs }}{{ $l = append $l . }}{{ end }}{{ join "," (concat $l (list "z")) }}`, { xs: ["b", "c"] })).toBe("a,b,c,z");
    expect(render(`{{ range $k, $v := fromYaml "b: 2\\na: 1" }}{{ $k }}{{ $v }}{{ end }}`, {})).toBe("a1b2");
  });

  it("quotes with Go escaping", () => {
    expect(render(`{{ quote .s }}`, { s: 'say "hi"\n' })).toBe('"say \\"hi\\"\\n"');
  });

  it("toYaml sorts keys, does not indent sequences and trims the final newline", () => {
    expect(toYaml({ b: [1, 2], a: { d: "x", c: true } })).toBe("a:\n  c: true\n  d: x\nb:\n- 1\n- 2");
    expect(toYaml(null)).toBe("null");
  });
});
