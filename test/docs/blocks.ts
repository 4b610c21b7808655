/**
 * The code blocks of the docs (README.md and docs/**.md): where they are, their language, their code,
 * and the HTML comment right above them (`<!-- example: NAME -->`, `<!-- no-run: why -->`), which
 * the docs tests read as the block's instructions.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));

export interface CodeBlock {
  /** Relative to the repository root, e.g. `docs/library.md`. */
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  lang: string;
  code: string;
  /** The text of the HTML comment on the line(s) right above the fence, or "". */
  note: string;
}

/** README.md and every Markdown file under docs/, sorted. */
export function docFiles(): string[] {
  const out = ["README.md"];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      const rel = path.join(dir, e.name);
      if (e.isDirectory()) walk(rel);
      else if (e.name.endsWith(".md")) out.push(rel);
    }
  };
  walk("docs");
  return out.sort();
}

export function codeBlocks(file: string): CodeBlock[] {
  const lines = fs.readFileSync(path.join(ROOT, file), "utf8").split("\n");
  const blocks: CodeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)\s*$/.exec(lines[i]);
    if (!open) continue;
    const end = lines.findIndex((l, j) => j > i && l.startsWith("```"));
    if (end < 0) throw new Error(`${file}:${i + 1}: a code block is never closed`);
    let above = i - 1;
    while (above >= 0 && lines[above].trim() === "") above--;
    const note =
      above >= 0 && /^<!--.*-->$/.test(lines[above].trim()) ? lines[above].trim().slice(4, -3).trim() : "";
    blocks.push({ file, line: i + 1, lang: open[1], code: lines.slice(i + 1, end).join("\n") + "\n", note });
    i = end;
  }
  return blocks;
}

export function allBlocks(): CodeBlock[] {
  return docFiles().flatMap(codeBlocks);
}

/** The block after `<!-- example: NAME ... -->` (there must be exactly one). */
export function namedExample(name: string): CodeBlock {
  const found = allBlocks().filter(
    (b) => b.note.split(/\s+/)[0] === "example:" && b.note.split(/\s+/)[1] === name,
  );
  if (found.length !== 1)
    throw new Error(`expected one docs block marked "example: ${name}", found ${found.length}`);
  return found[0];
}
