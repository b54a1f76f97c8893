// Emulation of Go text/tabwriter with minwidth 0, padding 3, pad char ' ', no flags, which is
// how oc writes every table. Cells are tab-terminated; the last cell of a line is never padded.

const PADDING = 3;

const width = (s: string): number => {
  let n = 0;
  for (const _ of s) n++;
  return n;
};

/**
 * Formats text the way the Go tabwriter would when the whole text is written and flushed.
 * The text after the last line feed (normally empty) is emitted unpadded without a line feed.
 */
export function tabwrite(text: string): string {
  const lines = text.split("\n").map((l) => l.split("\t"));
  const out: string[] = [];
  const widths: number[] = [];

  const writeLines = (from: number, to: number): void => {
    for (let i = from; i < to; i++) {
      const cells = lines[i] ?? [];
      let line = "";
      cells.forEach((cell, j) => {
        line += cell;
        const w = widths[j];
        if (j < widths.length && w !== undefined) line += " ".repeat(Math.max(0, w - width(cell)));
      });
      out.push(i + 1 === lines.length ? line : `${line}\n`);
    }
  };

  // Recursive column-block formatter, a transcription of tabwriter.(*Writer).format.
  const format = (line0: number, line1: number): void => {
    const column = widths.length;
    let start = line0;
    for (let i = line0; i < line1; i++) {
      if (column >= (lines[i]?.length ?? 0) - 1) continue;
      writeLines(start, i);
      start = i;
      let w = 0;
      for (; i < line1; i++) {
        const cells = lines[i] ?? [];
        if (column >= cells.length - 1) break;
        w = Math.max(w, width(cells[column] ?? "") + PADDING);
      }
      widths.push(w);
      format(start, i);
      widths.pop();
      start = i;
    }
    writeLines(start, line1);
  };

  format(0, lines.length);
  return out.join("");
}
