// A small TOML reader for the subset registries.conf (containers-registries.conf v2) uses:
// comments, bare/quoted/dotted keys, basic and literal strings, integers, floats, booleans,
// (multi-line) arrays, inline tables, [tables] and [[arrays of tables]].
// Multi-line strings and date-times are not used there and are rejected with a clear error.

export type TomlValue = string | number | boolean | TomlValue[] | TomlTable;
export interface TomlTable {
  [key: string]: TomlValue;
}

export class TomlError extends Error {
  constructor(message: string, readonly line: number) {
    super(`TOML line ${line}: ${message}`);
    this.name = "TomlError";
  }
}

const BARE_KEY = /[A-Za-z0-9_-]/;

const isTable = (v: TomlValue | undefined): v is TomlTable =>
  typeof v === "object" && v !== null && !Array.isArray(v);

class Parser {
  private pos = 0;
  private line = 1;
  // Tables created implicitly by headers or dotted keys may still be opened by a header of their own.
  private readonly defined = new Set<TomlTable>();
  private readonly tableArrays = new Set<TomlValue[]>();
  private readonly inlineTables = new Set<TomlTable>();

  constructor(private readonly src: string) {}

  private fail(msg: string): never {
    throw new TomlError(msg, this.line);
  }

  private peek(o = 0): string {
    return this.src[this.pos + o] ?? "";
  }

  private next(): string {
    const c = this.src[this.pos++] ?? "";
    if (c === "\n") this.line++;
    return c;
  }

  private skipWs(): void {
    while (this.peek() === " " || this.peek() === "\t") this.pos++;
  }

  private skipComment(): void {
    if (this.peek() === "#") while (this.pos < this.src.length && this.peek() !== "\n") this.pos++;
  }

  /** Skips whitespace, newlines and comments (inside arrays). */
  private skipAll(): void {
    for (;;) {
      this.skipWs();
      this.skipComment();
      if (this.peek() === "\n" || (this.peek() === "\r" && this.peek(1) === "\n")) {
        if (this.peek() === "\r") this.pos++;
        this.next();
        continue;
      }
      return;
    }
  }

  private endOfLine(): void {
    this.skipWs();
    this.skipComment();
    if (this.peek() === "\r" && this.peek(1) === "\n") this.pos++;
    if (this.pos >= this.src.length) return;
    if (this.peek() !== "\n") this.fail(`unexpected ${JSON.stringify(this.peek())} after value`);
    this.next();
  }

  parse(): TomlTable {
    const root: TomlTable = {};
    let current = root;
    for (;;) {
      this.skipAll();
      if (this.pos >= this.src.length) return root;
      if (this.peek() === "[") {
        current = this.header(root);
      } else {
        this.keyValue(current);
      }
      this.endOfLine();
    }
  }

  private key(): string[] {
    const parts: string[] = [];
    for (;;) {
      this.skipWs();
      const c = this.peek();
      if (c === '"') parts.push(this.basicString());
      else if (c === "'") parts.push(this.literalString());
      else {
        const start = this.pos;
        while (BARE_KEY.test(this.peek())) this.pos++;
        if (this.pos === start) this.fail(c === "" ? "unexpected end of input, expected a key" : `invalid key character ${JSON.stringify(c)}`);
        parts.push(this.src.slice(start, this.pos));
      }
      this.skipWs();
      if (this.peek() !== ".") return parts;
      this.pos++;
    }
  }

  private header(root: TomlTable): TomlTable {
    this.pos++;
    const isArray = this.peek() === "[";
    if (isArray) this.pos++;
    const path = this.key();
    for (let i = isArray ? 2 : 1; i > 0; i--) {
      if (this.peek() !== "]") this.fail("unterminated table header");
      this.pos++;
    }
    let t = root;
    for (const k of path.slice(0, -1)) t = this.descend(t, k);
    const last = path[path.length - 1]!;
    const existing = t[last];
    if (isArray) {
      if (existing === undefined) {
        const arr: TomlValue[] = [];
        this.tableArrays.add(arr);
        t[last] = arr;
        const fresh: TomlTable = {};
        arr.push(fresh);
        return fresh;
      }
      if (!Array.isArray(existing) || !this.tableArrays.has(existing)) this.fail(`key ${JSON.stringify(last)} is not an array of tables`);
      const fresh: TomlTable = {};
      existing.push(fresh);
      return fresh;
    }
    if (existing === undefined) {
      const fresh: TomlTable = {};
      t[last] = fresh;
      this.defined.add(fresh);
      return fresh;
    }
    if (!isTable(existing) || this.defined.has(existing) || this.inlineTables.has(existing))
      this.fail(`table ${JSON.stringify(path.join("."))} defined twice`);
    this.defined.add(existing);
    return existing;
  }

  /** Follows a key of a header or dotted key, creating implicit tables. */
  private descend(t: TomlTable, k: string): TomlTable {
    const v = t[k];
    if (v === undefined) {
      const fresh: TomlTable = {};
      t[k] = fresh;
      return fresh;
    }
    if (Array.isArray(v) && this.tableArrays.has(v)) {
      const lastEl = v[v.length - 1];
      if (isTable(lastEl)) return lastEl;
    }
    if (isTable(v) && !this.inlineTables.has(v)) return v;
    return this.fail(`key ${JSON.stringify(k)} is already a value, not a table`);
  }

  private keyValue(t: TomlTable): void {
    const path = this.key();
    if (this.peek() !== "=") this.fail(`expected "=" after key ${JSON.stringify(path.join("."))}`);
    this.pos++;
    this.skipWs();
    const value = this.value();
    let target = t;
    for (const k of path.slice(0, -1)) target = this.descend(target, k);
    const last = path[path.length - 1]!;
    if (Object.prototype.hasOwnProperty.call(target, last)) this.fail(`duplicate key ${JSON.stringify(path.join("."))}`);
    target[last] = value;
  }

  private value(): TomlValue {
    const c = this.peek();
    if (c === '"') {
      if (this.src.startsWith('"""', this.pos)) this.fail("multi-line strings are not supported");
      return this.basicString();
    }
    if (c === "'") {
      if (this.src.startsWith("'''", this.pos)) this.fail("multi-line strings are not supported");
      return this.literalString();
    }
    if (c === "[") return this.array();
    if (c === "{") return this.inlineTable();
    if (this.src.startsWith("true", this.pos) && !BARE_KEY.test(this.peek(4))) {
      this.pos += 4;
      return true;
    }
    if (this.src.startsWith("false", this.pos) && !BARE_KEY.test(this.peek(5))) {
      this.pos += 5;
      return false;
    }
    const m = /^[+-]?(?:inf|nan|0x[0-9A-Fa-f_]+|0o[0-7_]+|0b[01_]+|[0-9][0-9_]*(?:\.[0-9_]+)?(?:[eE][+-]?[0-9_]+)?)/.exec(this.src.slice(this.pos, this.pos + 64));
    if (m && m[0] !== "") {
      const text = m[0];
      const after = this.peek(text.length);
      if (after === "-" || after === ":" || after === "T") this.fail("date-time values are not supported");
      this.pos += text.length;
      return numberOf(text);
    }
    return this.fail(c === "" || c === "\n" ? "missing value" : `invalid value starting with ${JSON.stringify(c)}`);
  }

  private basicString(): string {
    this.pos++;
    let out = "";
    for (;;) {
      const c = this.peek();
      if (c === "" || c === "\n") this.fail("unterminated string");
      this.pos++;
      if (c === '"') return out;
      if (c !== "\\") {
        out += c;
        continue;
      }
      const e = this.next();
      switch (e) {
        case "b": out += "\b"; break;
        case "t": out += "\t"; break;
        case "n": out += "\n"; break;
        case "f": out += "\f"; break;
        case "r": out += "\r"; break;
        case '"': out += '"'; break;
        case "\\": out += "\\"; break;
        case "u":
        case "U": {
          const n = e === "u" ? 4 : 8;
          const hex = this.src.slice(this.pos, this.pos + n);
          if (!/^[0-9A-Fa-f]+$/.test(hex) || hex.length !== n) this.fail(`invalid unicode escape \\${e}${hex}`);
          const cp = parseInt(hex, 16);
          if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) this.fail(`invalid unicode scalar \\${e}${hex}`);
          out += String.fromCodePoint(cp);
          this.pos += n;
          break;
        }
        default:
          this.fail(`invalid escape \\${e}`);
      }
    }
  }

  private literalString(): string {
    this.pos++;
    const end = this.src.indexOf("'", this.pos);
    const nl = this.src.indexOf("\n", this.pos);
    if (end < 0 || (nl >= 0 && nl < end)) this.fail("unterminated string");
    const s = this.src.slice(this.pos, end);
    this.pos = end + 1;
    return s;
  }

  private array(): TomlValue[] {
    this.pos++;
    const out: TomlValue[] = [];
    for (;;) {
      this.skipAll();
      if (this.peek() === "]") {
        this.pos++;
        return out;
      }
      out.push(this.value());
      this.skipAll();
      const c = this.peek();
      if (c === ",") this.pos++;
      else if (c !== "]") this.fail(c === "" ? "unterminated array" : `expected "," or "]" in array, found ${JSON.stringify(c)}`);
    }
  }

  private inlineTable(): TomlTable {
    this.pos++;
    const t: TomlTable = {};
    this.inlineTables.add(t);
    this.skipWs();
    if (this.peek() === "}") {
      this.pos++;
      return t;
    }
    for (;;) {
      // Nested tables created by dotted keys inside the inline table are writable until it closes.
      this.inlineTables.delete(t);
      this.keyValue(t);
      this.inlineTables.add(t);
      this.skipWs();
      const c = this.next();
      if (c === "}") return t;
      if (c !== ",") this.fail(`expected "," or "}" in inline table`);
      this.skipWs();
    }
  }
}

function numberOf(text: string): number {
  const t = text.replace(/_/g, "");
  if (/^[+-]?inf$/.test(t)) return t.startsWith("-") ? -Infinity : Infinity;
  if (/^[+-]?nan$/.test(t)) return NaN;
  if (t.startsWith("0x")) return parseInt(t.slice(2), 16);
  if (t.startsWith("0o")) return parseInt(t.slice(2), 8);
  if (t.startsWith("0b")) return parseInt(t.slice(2), 2);
  return Number(t);
}

/** Parses TOML text (the subset above). Throws TomlError with the line number on bad input. */
export function parseToml(text: string): TomlTable {
  return new Parser(text).parse();
}
