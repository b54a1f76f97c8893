// Terminal text: styles, and width measured and cut in visible characters (escape sequences count
// for nothing), so a line never wraps and the view never scrolls.

// SGR sequences only: the view writes no other escapes inside a line.
const SGR = /\x1b\[[0-9;]*m/g;

export const style = {
  bold: (s: string) => `\x1b[1m${s}\x1b[0m`,
  dim: (s: string) => `\x1b[2m${s}\x1b[0m`,
  green: (s: string) => `\x1b[32m${s}\x1b[0m`,
  red: (s: string) => `\x1b[31m${s}\x1b[0m`,
  yellow: (s: string) => `\x1b[33m${s}\x1b[0m`,
};

/** The text without its styles. */
export function plain(s: string): string {
  return s.replace(SGR, "");
}

/** Visible width: code points, styles excluded (the view uses no double-width characters). */
export function visibleWidth(s: string): number {
  return [...plain(s)].length;
}

/** At most `width` visible characters, ending in "…" when cut; styles kept and closed. */
export function fit(s: string, width: number): string {
  if (width <= 0) return "";
  if (visibleWidth(s) <= width) return s;
  let out = "";
  let shown = 0;
  let styled = false;
  for (const part of s.split(/(\x1b\[[0-9;]*m)/)) {
    if (part.startsWith("\x1b[")) {
      out += part;
      styled = part !== "\x1b[0m";
      continue;
    }
    for (const ch of part) {
      if (shown === width - 1) return `${out}…${styled ? "\x1b[0m" : ""}`;
      out += ch;
      shown++;
    }
  }
  return out;
}

/** Pads to `width` visible characters (after cutting to it). */
export function pad(s: string, width: number): string {
  const cut = fit(s, width);
  return cut + " ".repeat(Math.max(0, width - visibleWidth(cut)));
}
