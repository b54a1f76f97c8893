// A Go text/template interpreter for the subset of the language the chart uses, with Go's semantics
// where the chart can observe them: trim markers, pipelines (the piped value is the last argument),
// variables scoped to their block, `$` = the template's data, Go truthiness (false, 0, "", nil and
// empty collections are false), `range` over lists and over maps in sorted key order, `else if` /
// `else with`, define/template/include, and an error (not a silent empty) when a field is read from
// nil, as Helm does. Anything outside the subset is a parse error naming the construct, so the
// chart cannot quietly grow beyond what this renderer honestly supports.

export type Value = unknown;
export type Func = (...args: Value[]) => Value;

export class TemplateError extends Error {
  constructor(where: string, message: string) {
    super(`${where}: ${message}`);
    this.name = "TemplateError";
  }
}

// ---------------------------------------------------------------- lexing of actions

type Tok =
  | { t: "str"; v: string }
  | { t: "num"; v: number }
  | { t: "bool"; v: boolean }
  | { t: "nil" }
  | { t: "field"; path: string[]; glued: boolean } // ".a.b"; [] is "."; glued: right after ")"
  | { t: "var"; name: string; path: string[] } // "$x.a"; name "$" is the root
  | { t: "ident"; v: string }
  | { t: "op"; v: "(" | ")" | "|" | ":=" | "=" | "," };

function lexAction(src: string, where: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  const fieldPath = (): string[] => {
    const path: string[] = [];
    while (src[i] === ".") {
      i++;
      const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(i));
      if (!m) {
        if (path.length === 0) return path; // lone "."
        throw new TemplateError(where, `bad field name at "${src.slice(i - 1, i + 10)}"`);
      }
      path.push(m[0]);
      i += m[0].length;
    }
    return path;
  };
  while (i < src.length) {
    const c = src[i]!;
    if (/\s/.test(c)) {
      i++;
    } else if (c === '"') {
      let j = i + 1;
      while (j < src.length && src[j] !== '"') j += src[j] === "\\" ? 2 : 1;
      if (j >= src.length) throw new TemplateError(where, "unterminated string");
      out.push({ t: "str", v: JSON.parse(src.slice(i, j + 1)) as string });
      i = j + 1;
    } else if (c === "`") {
      const j = src.indexOf("`", i + 1);
      if (j < 0) throw new TemplateError(where, "unterminated raw string");
      out.push({ t: "str", v: src.slice(i + 1, j) });
      i = j + 1;
    } else if (c === "(" || c === ")" || c === "|" || c === ",") {
      out.push({ t: "op", v: c });
      i++;
    } else if (src.startsWith(":=", i)) {
      out.push({ t: "op", v: ":=" });
      i += 2;
    } else if (c === "=") {
      out.push({ t: "op", v: "=" });
      i++;
    } else if (c === ".") {
      const glued = i > 0 && src[i - 1] === ")";
      out.push({ t: "field", path: fieldPath(), glued });
    } else if (c === "$") {
      const m = /^\$[A-Za-z0-9_]*/.exec(src.slice(i))!;
      i += m[0].length;
      out.push({ t: "var", name: m[0], path: fieldPath() });
    } else if (/[-0-9]/.test(c)) {
      const m = /^-?\d+(\.\d+)?/.exec(src.slice(i));
      if (!m) throw new TemplateError(where, `unexpected "${c}"`);
      out.push({ t: "num", v: Number(m[0]) });
      i += m[0].length;
    } else if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(i))!;
      i += m[0].length;
      if (m[0] === "true" || m[0] === "false") out.push({ t: "bool", v: m[0] === "true" });
      else if (m[0] === "nil") out.push({ t: "nil" });
      else out.push({ t: "ident", v: m[0] });
    } else {
      throw new TemplateError(where, `unsupported character "${c}" in action`);
    }
  }
  return out;
}

// ---------------------------------------------------------------- pipelines

type Operand =
  | { k: "lit"; v: Value }
  | { k: "field"; path: string[] }
  | { k: "var"; name: string; path: string[] }
  | { k: "func"; name: string }
  | { k: "sub"; pipe: Pipeline; path: string[] };
type Command = Operand[];
interface Pipeline {
  decl?: { names: string[]; assign: boolean };
  cmds: Command[];
}

function parsePipeline(toks: Tok[], where: string): Pipeline {
  let pos = 0;
  const pipe: Pipeline = { cmds: [] };
  // Declarations: "$x :=", "$i, $v :=", "$x ="
  const declEnd = toks.findIndex((t) => t.t === "op" && (t.v === ":=" || t.v === "="));
  if (declEnd > 0 && toks.slice(0, declEnd).every((t) => (t.t === "var" && t.path.length === 0) || (t.t === "op" && t.v === ","))) {
    const names = toks.slice(0, declEnd).filter((t): t is Extract<Tok, { t: "var" }> => t.t === "var").map((t) => t.name);
    pipe.decl = { names, assign: (toks[declEnd] as { v: string }).v === "=" };
    pos = declEnd + 1;
  }
  const parseCmds = (stopAtParen: boolean): Command[] => {
    const cmds: Command[] = [];
    let cmd: Command = [];
    while (pos < toks.length) {
      const t = toks[pos]!;
      if (t.t === "op" && t.v === ")") {
        if (!stopAtParen) throw new TemplateError(where, "unexpected )");
        break;
      }
      pos++;
      if (t.t === "op" && t.v === "|") {
        if (cmd.length === 0) throw new TemplateError(where, "empty command before |");
        cmds.push(cmd);
        cmd = [];
        continue;
      }
      if (t.t === "op" && t.v === "(") {
        const inner: Pipeline = { cmds: parseCmds(true) };
        if (toks[pos]?.t !== "op" || (toks[pos] as { v: string }).v !== ")") throw new TemplateError(where, "missing )");
        pos++;
        // "(pipeline).field": a field token written right after the ")".
        let path: string[] = [];
        const next = toks[pos];
        if (next?.t === "field" && next.glued && next.path.length > 0) {
          path = next.path;
          pos++;
        }
        cmd.push({ k: "sub", pipe: inner, path });
        continue;
      }
      if (t.t === "op") throw new TemplateError(where, `unexpected "${t.v}"`);
      if (t.t === "str" || t.t === "num" || t.t === "bool") cmd.push({ k: "lit", v: t.v });
      else if (t.t === "nil") cmd.push({ k: "lit", v: null });
      else if (t.t === "field") cmd.push({ k: "field", path: t.path });
      else if (t.t === "var") cmd.push({ k: "var", name: t.name, path: t.path });
      else cmd.push({ k: "func", name: t.v });
    }
    if (cmd.length > 0) cmds.push(cmd);
    else if (cmds.length > 0) throw new TemplateError(where, "missing command after |");
    return cmds;
  };
  pipe.cmds = parseCmds(false);
  if (pos !== toks.length) throw new TemplateError(where, "unexpected )");
  if (pipe.cmds.length === 0) throw new TemplateError(where, "missing value");
  return pipe;
}

// ---------------------------------------------------------------- tree

type Node =
  | { n: "text"; v: string }
  | { n: "out"; pipe: Pipeline; where: string }
  | { n: "if" | "with"; pipe: Pipeline; body: Node[]; else: Node[]; where: string }
  | { n: "range"; pipe: Pipeline; body: Node[]; else: Node[]; where: string }
  | { n: "template"; name: string; pipe?: Pipeline; where: string };

interface RawAction {
  src: string;
  line: number;
}

/** Splits the source into text and actions, applying the `{{-` / `-}}` trim markers. */
function scan(src: string, file: string): Array<string | RawAction> {
  const parts: Array<string | RawAction> = [];
  let i = 0;
  let trimNext = false;
  while (i < src.length) {
    const open = src.indexOf("{{", i);
    let text = open < 0 ? src.slice(i) : src.slice(i, open);
    if (trimNext) text = text.replace(/^\s+/, "");
    trimNext = false;
    if (open < 0) {
      parts.push(text);
      break;
    }
    let j = open + 2;
    let inner = "";
    const leftTrim = /^-\s/.test(src.slice(j, j + 2)) || src.startsWith("-/*", j);
    if (leftTrim) {
      text = text.replace(/\s+$/, "");
      j += 1;
    }
    parts.push(text);
    // Find the closing "}}" outside strings and comments.
    let k = j;
    while (k < src.length) {
      const c = src[k]!;
      if (src.startsWith("/*", k)) {
        const e = src.indexOf("*/", k + 2);
        if (e < 0) break;
        k = e + 2;
      } else if (c === '"') {
        k++;
        while (k < src.length && src[k] !== '"') k += src[k] === "\\" ? 2 : 1;
        k++;
      } else if (c === "`") {
        k = src.indexOf("`", k + 1) + 1;
        if (k === 0) break;
      } else if (src.startsWith("}}", k)) break;
      else k++;
    }
    if (!src.startsWith("}}", k)) throw new TemplateError(`${file}:${lineOf(src, open)}`, "unclosed action");
    inner = src.slice(j, k);
    if (/\s-$/.test(inner) || /\*\/-$/.test(inner)) {
      inner = inner.slice(0, -1);
      trimNext = true;
    }
    parts.push({ src: inner.trim(), line: lineOf(src, open) });
    i = k + 2;
  }
  return parts;
}

function lineOf(src: string, index: number): number {
  return src.slice(0, index).split("\n").length;
}

export interface Parsed {
  main: Node[];
  defines: Map<string, Node[]>;
}

/** Parses one template file into its body and its `define`d templates. */
export function parseTemplate(src: string, file: string): Parsed {
  const parts = scan(src, file);
  const defines = new Map<string, Node[]>();
  let idx = 0;

  // Parses nodes until one of the given keywords; returns the nodes and the stopping action.
  const parseList = (stops: string[]): { nodes: Node[]; stop?: { kw: string; rest: string; where: string } } => {
    const nodes: Node[] = [];
    while (idx < parts.length) {
      const p = parts[idx++]!;
      if (typeof p === "string") {
        if (p) nodes.push({ n: "text", v: p });
        continue;
      }
      const where = `${file}:${p.line}`;
      if (p.src.startsWith("/*")) {
        if (!p.src.endsWith("*/")) throw new TemplateError(where, "comment must fill the whole action");
        continue;
      }
      const m = /^([a-z]+)\b\s*([\s\S]*)$/.exec(p.src);
      const kw = m?.[1] ?? "";
      const rest = m?.[2] ?? "";
      if (stops.includes(kw)) return { nodes, stop: { kw, rest, where } };
      switch (kw) {
        case "if":
        case "with":
        case "range":
          nodes.push(parseBlock(kw, rest, where));
          break;
        case "define": {
          const name = parseName(rest, where);
          const body = parseList(["end"]);
          if (!body.stop) throw new TemplateError(where, `define "${name}" has no end`);
          defines.set(name, body.nodes);
          break;
        }
        case "template": {
          const toks = lexAction(rest, where);
          const first = toks[0];
          if (first?.t !== "str") throw new TemplateError(where, "template needs a quoted name");
          nodes.push({ n: "template", name: first.v, pipe: toks.length > 1 ? parsePipeline(toks.slice(1), where) : undefined, where });
          break;
        }
        case "end":
        case "else":
          throw new TemplateError(where, `unexpected {{${kw}}}`);
        case "block":
        case "break":
        case "continue":
          throw new TemplateError(where, `{{${kw}}} is outside the renderer's supported subset`);
        default:
          nodes.push({ n: "out", pipe: parsePipeline(lexAction(p.src, where), where), where });
      }
    }
    return { nodes };
  };

  const parseBlock = (kw: "if" | "with" | "range", rest: string, where: string): Node => {
    const pipe = parsePipeline(lexAction(rest, where), where);
    const body = parseList(["else", "end"]);
    if (!body.stop) throw new TemplateError(where, `{{${kw}}} has no end`);
    let elseNodes: Node[] = [];
    if (body.stop.kw === "else") {
      const chained = /^(if|with)\b\s*([\s\S]*)$/.exec(body.stop.rest);
      if (chained) {
        if (kw === "range" || chained[1] !== (kw === "with" ? "with" : "if"))
          throw new TemplateError(body.stop.where, `{{else ${chained[1]}}} inside {{${kw}}} is not supported`);
        // "else if x" is "else" + a nested "if x ... end" sharing this block's end.
        elseNodes = [parseBlock(chained[1] as "if" | "with", chained[2]!, body.stop.where)];
      } else {
        if (body.stop.rest.trim()) throw new TemplateError(body.stop.where, `unexpected "${body.stop.rest}" after else`);
        const e = parseList(["end"]);
        if (!e.stop) throw new TemplateError(where, `{{${kw}}} has no end`);
        elseNodes = e.nodes;
      }
    }
    return { n: kw, pipe, body: body.nodes, else: elseNodes, where };
  };

  const main = parseList([]);
  return { main: main.nodes, defines };
}

function parseName(rest: string, where: string): string {
  const toks = lexAction(rest, where);
  const first = toks[0];
  if (toks.length !== 1 || first?.t !== "str") throw new TemplateError(where, "define needs exactly one quoted name");
  return first.v;
}

// ---------------------------------------------------------------- execution

/** Go's notion of an empty value (false in if/with/and/or/not, replaced by `default`). */
export function isEmpty(v: Value): boolean {
  if (v === undefined || v === null || v === false || v === 0 || v === "") return true;
  if (Array.isArray(v)) return v.length === 0;
  if (typeof v === "object") return Object.keys(v as object).length === 0;
  return false;
}

/** How `{{ x }}` prints a value (Go's %v, with Helm's "<no value>" → ""). */
export function printValue(v: Value): string {
  if (v === undefined || v === null) return "";
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  if (Array.isArray(v)) return `[${v.map(printValue).join(" ")}]`;
  if (typeof v === "object")
    return `map[${Object.keys(v as object)
      .sort()
      .map((k) => `${k}:${printValue((v as Record<string, Value>)[k])}`)
      .join(" ")}]`;
  return String(v);
}

class Scope {
  private readonly vars = new Map<string, Value>();
  constructor(private readonly parent?: Scope) {}
  get(name: string, where: string): Value {
    if (this.vars.has(name)) return this.vars.get(name);
    if (this.parent) return this.parent.get(name, where);
    throw new TemplateError(where, `undefined variable "${name}"`);
  }
  declare(name: string, v: Value): void {
    this.vars.set(name, v);
  }
  assign(name: string, v: Value, where: string): void {
    if (this.vars.has(name)) this.vars.set(name, v);
    else if (this.parent) this.parent.assign(name, v, where);
    else throw new TemplateError(where, `undefined variable "${name}"`);
  }
}

export interface Engine {
  /** Renders a parsed body with `data` as both "." and "$". */
  render(nodes: Node[], data: Value): string;
  /** Renders a named (defined) template. */
  include(name: string, data: Value): string;
}

/**
 * Builds an engine over a set of defines and functions. `funcs` may refer back to the engine (for
 * `include`) through the `engineRef` it receives.
 */
export function createEngine(defines: Map<string, Node[]>, makeFuncs: (e: Engine) => Record<string, Func>): Engine {
  let funcs: Record<string, Func> = {};
  let depth = 0;

  const field = (base: Value, path: string[], where: string, label: string): Value => {
    let v = base;
    let shown = label;
    for (const name of path) {
      if (v === undefined || v === null) throw new TemplateError(where, `nil pointer evaluating ${shown}.${name}`);
      if (typeof v !== "object" || Array.isArray(v))
        throw new TemplateError(where, `can't evaluate field ${name} in type ${Array.isArray(v) ? "[]interface {}" : typeof v}`);
      v = (v as Record<string, Value>)[name];
      shown += `.${name}`;
    }
    return v;
  };

  const evalOperand = (op: Operand, dot: Value, scope: Scope, where: string): Value => {
    switch (op.k) {
      case "lit":
        return op.v;
      case "field":
        return field(dot, op.path, where, "");
      case "var":
        return field(scope.get(op.name, where), op.path, where, op.name);
      case "sub":
        return field(evalPipe(op.pipe, dot, scope, where), op.path, where, "(...)");
      case "func": {
        const f = funcs[op.name];
        if (!f) throw new TemplateError(where, `function "${op.name}" not defined`);
        return f();
      }
    }
  };

  const evalCommand = (cmd: Command, dot: Value, scope: Scope, where: string, piped: Value[] | undefined): Value => {
    const [head, ...rest] = cmd;
    const args = () => [...rest.map((a) => evalOperand(a, dot, scope, where)), ...(piped ?? [])];
    if (head!.k === "func") {
      const f = funcs[head!.name];
      if (!f) throw new TemplateError(where, `function "${head!.name}" not defined`);
      // and/or short-circuit (Go 1.18+): evaluate arguments lazily.
      if (head!.name === "and" || head!.name === "or") {
        const thunks = [...rest.map((a) => () => evalOperand(a, dot, scope, where)), ...(piped ?? []).map((p) => () => p)];
        let last: Value;
        for (const t of thunks) {
          last = t();
          if (head!.name === "and" ? isEmpty(last) : !isEmpty(last)) return last;
        }
        return last;
      }
      try {
        return f(...args());
      } catch (err) {
        if (err instanceof TemplateError) throw err;
        throw new TemplateError(where, `error calling ${head!.name}: ${(err as Error).message}`);
      }
    }
    const v = evalOperand(head!, dot, scope, where);
    if (typeof v === "function") {
      try {
        return (v as Func)(...args());
      } catch (err) {
        if (err instanceof TemplateError) throw err;
        throw new TemplateError(where, (err as Error).message);
      }
    }
    if (rest.length > 0 || piped) throw new TemplateError(where, "can't give argument to non-function");
    return v;
  };

  const evalPipe = (pipe: Pipeline, dot: Value, scope: Scope, where: string): Value => {
    let v: Value;
    pipe.cmds.forEach((cmd, i) => {
      v = evalCommand(cmd, dot, scope, where, i === 0 ? undefined : [v]);
    });
    if (pipe.decl && pipe.decl.names.length === 1) {
      if (pipe.decl.assign) scope.assign(pipe.decl.names[0]!, v, where);
      else scope.declare(pipe.decl.names[0]!, v);
    }
    return v;
  };

  const exec = (nodes: Node[], dot: Value, scope: Scope, out: string[]): void => {
    for (const node of nodes) {
      switch (node.n) {
        case "text":
          out.push(node.v);
          break;
        case "out": {
          const v = evalPipe(node.pipe, dot, scope, node.where);
          if (!node.pipe.decl) out.push(printValue(v));
          break;
        }
        case "if":
        case "with": {
          const inner = new Scope(scope);
          const v = evalPipe(node.pipe, dot, inner, node.where);
          if (!isEmpty(v)) exec(node.body, node.n === "with" ? v : dot, inner, out);
          else exec(node.else, dot, new Scope(scope), out);
          break;
        }
        case "range": {
          const decl = node.pipe.decl;
          const v = evalPipe({ cmds: node.pipe.cmds }, dot, scope, node.where);
          let entries: Array<[Value, Value]>;
          if (v === undefined || v === null) entries = [];
          else if (Array.isArray(v)) entries = v.map((x, i) => [i, x]);
          else if (typeof v === "object") entries = Object.keys(v as object).sort().map((k) => [k, (v as Record<string, Value>)[k]]);
          else if (typeof v === "number" && Number.isInteger(v)) entries = Array.from({ length: v }, (_, i) => [i, i]);
          else throw new TemplateError(node.where, `range can't iterate over ${printValue(v)}`);
          if (entries.length === 0) exec(node.else, dot, new Scope(scope), out);
          for (const [k, x] of entries) {
            const inner = new Scope(scope);
            if (decl?.names.length === 1) inner.declare(decl.names[0]!, x);
            if (decl?.names.length === 2) {
              inner.declare(decl.names[0]!, k);
              inner.declare(decl.names[1]!, x);
            }
            exec(node.body, x, inner, out);
          }
          break;
        }
        case "template": {
          const data = node.pipe ? evalPipe(node.pipe, dot, scope, node.where) : undefined;
          out.push(engine.include(node.name, data));
          break;
        }
      }
    }
  };

  const engine: Engine = {
    render(nodes, data) {
      const scope = new Scope();
      scope.declare("$", data);
      const out: string[] = [];
      exec(nodes, data, scope, out);
      return out.join("");
    },
    include(name, data) {
      const body = defines.get(name);
      if (!body) throw new TemplateError("include", `no template "${name}"`);
      if (++depth > 100) throw new TemplateError("include", `template "${name}" recurses too deeply`);
      try {
        return engine.render(body, data);
      } finally {
        depth--;
      }
    },
  };
  funcs = makeFuncs(engine);
  return engine;
}
