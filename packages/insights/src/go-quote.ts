// Go's %q (strconv.Quote) for the unavailable-node description.

const isPrintable = (cp: number): boolean => {
  // Approximation of unicode.IsPrint: control, surrogate, private-use and unassigned points are not printable.
  if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) return false;
  if (cp === 0xad) return false;
  return /[\p{L}\p{M}\p{N}\p{P}\p{S}\u0020]/u.test(String.fromCodePoint(cp));
};

export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0;
    switch (ch) {
      case '"':
        out += '\\"';
        continue;
      case "\\":
        out += "\\\\";
        continue;
      case "\u0007":
        out += "\\a";
        continue;
      case "\b":
        out += "\\b";
        continue;
      case "\f":
        out += "\\f";
        continue;
      case "\n":
        out += "\\n";
        continue;
      case "\r":
        out += "\\r";
        continue;
      case "\t":
        out += "\\t";
        continue;
      case "\v":
        out += "\\v";
        continue;
    }
    if (cp === 0xfffd && ch !== "\ufffd") {
      out += "\\ufffd";
    } else if (isPrintable(cp)) {
      out += ch;
    } else if (cp < 0x80) {
      out += `\\x${cp.toString(16).padStart(2, "0")}`;
    } else if (cp < 0x10000) {
      out += `\\u${cp.toString(16).padStart(4, "0")}`;
    } else {
      out += `\\U${cp.toString(16).padStart(8, "0")}`;
    }
  }
  return `${out}"`;
}
