// The README's shell blocks (```sh), each with the marker the line before it must carry, saying
// whether and where it runs: `<!-- readme-commands: run by FILE … -->` or
// `<!-- readme-commands: not run (why) -->`. A block without one fails readme-commands.test.ts, so
// none is skipped silently.
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

export interface ShellBlock {
  /** 1-based line of the opening fence. */
  line: number;
  /** The marker's text after `readme-commands:`, or undefined when the block has none. */
  marker: string | undefined;
  /** The file that runs it (`run by FILE`), relative to the repository root. */
  runBy: string | undefined;
  /** The commands, one per line, without comments and blank lines. */
  commands: string[];
}

const MARKER = /^<!--\s*readme-commands:\s*(.*?)\s*-->$/;

export function shellBlocks(text = readFileSync(join(REPO_ROOT, "README.md"), "utf8")): ShellBlock[] {
  const lines = text.split("\n");
  const blocks: ShellBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!/^```(sh|bash|shell)\s*$/.test(lines[i]!)) {
      if (lines[i]!.startsWith("```")) i = closing(lines, i); // skip other fenced blocks whole
      continue;
    }
    const end = closing(lines, i);
    const marker = MARKER.exec(lines[i - 1] ?? "")?.[1];
    blocks.push({
      line: i + 1,
      marker,
      runBy: marker ? /^run by (\S+)/.exec(marker)?.[1] : undefined,
      commands: lines
        .slice(i + 1, end)
        .map(stripComment)
        .filter((l) => l !== ""),
    });
    i = end;
  }
  return blocks;
}

function closing(lines: string[], open: number): number {
  for (let j = open + 1; j < lines.length; j++) if (lines[j]!.startsWith("```")) return j;
  throw new Error(`README.md:${open + 1}: fenced block never closed`);
}

/** A command without its trailing `# comment` (a `#` after whitespace and outside quotes). */
export function stripComment(line: string): string {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === "#" && (i === 0 || /\s/.test(line[i - 1]!))) return line.slice(0, i).trim();
  }
  return line.trim();
}

/** The blocks a given test file runs, in README order. */
export function blocksRunBy(file: string): ShellBlock[] {
  return shellBlocks().filter((b) => b.runBy === file);
}
