/**
 * Every TypeScript block of README.md and docs/**.md type-checks under the tsconfig docs/library.md
 * documents (`strict`, `nodenext`, ESM), in one compiler run over a project set up as the page tells
 * a user to (test/docs/project.ts); every one that is a complete program runs (exit 0) there, unless
 * the comment above it says `<!-- no-run: why -->`. A block marked `<!-- file: NAME.ts -->` is
 * written under that name, so another block can import it (`./NAME.js`); such a module runs as part of
 * the blocks that import it.
 * Every `proving ...` command in a shell block names a command that docs/cli.md documents.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { after, describe, test } from "node:test";
import ts from "typescript";
import { allBlocks, type CodeBlock, ROOT } from "./blocks.ts";
import { createDocsProject } from "./project.ts";

const blocks = allBlocks();
const tsBlocks = blocks.filter((b) => b.lang === "ts" || b.lang === "typescript");
const where = (b: CodeBlock) => `${b.file}:${b.line}`;
const fileName = (b: CodeBlock, i: number) => /^file:\s*(\S+)/.exec(b.note)?.[1] ?? `block-${i}.ts`;

const project = createDocsProject();
after(() => project.dispose());
const files = tsBlocks.map((b, i) => ({ block: b, file: project.write(fileName(b, i), b.code) }));

describe("TypeScript blocks in the docs", () => {
  test("there are some, each with a place", () => {
    assert.ok(tsBlocks.length >= 5, `${tsBlocks.length} blocks`);
    const names = files.map((f) => path.basename(f.file));
    assert.equal(new Set(names).size, names.length, "file: names are unique");
  });

  test("type-check under the documented tsconfig (strict, nodenext, ESM)", () => {
    const parsed = ts.parseJsonConfigFileContent(
      { compilerOptions: { ...project.compilerOptions, noEmit: true } },
      ts.sys,
      project.dir,
    );
    assert.equal(parsed.options.strict, true, "the documented tsconfig is strict");
    const program = ts.createProgram(
      files.map((f) => f.file),
      parsed.options,
    );
    const ours = new Map(files.map((f) => [fs.realpathSync(f.file), f.block]));
    const problems = [...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics()].map((d) =>
      ts.flattenDiagnosticMessageText(d.messageText, "\n"),
    );
    for (const sf of program.getSourceFiles()) {
      const block = ours.get(fs.realpathSync(sf.fileName));
      if (!block) continue;
      for (const d of [...program.getSyntacticDiagnostics(sf), ...program.getSemanticDiagnostics(sf)]) {
        const { line } = sf.getLineAndCharacterOfPosition(d.start ?? 0);
        const text = ts.flattenDiagnosticMessageText(d.messageText, "\n");
        problems.push(`${block.file}:${block.line + 1 + line}: TS${d.code} ${text}`);
      }
    }
    assert.deepEqual(problems, []);
  });

  // a module another block imports runs as part of that block
  const imported = (f: (typeof files)[number]) => {
    const stem = path.basename(f.file).replace(/\.ts$/, "");
    return files.some((g) => g !== f && g.block.code.includes(`"./${stem}.js"`));
  };
  const runnable = files.filter((f) => !f.block.note.startsWith("no-run") && !imported(f));
  for (const { block, file } of runnable)
    test(`${where(block)} runs`, { timeout: 120_000 }, async () => {
      const { NODE_TEST_CONTEXT: _, NODE_OPTIONS: __, ...env } = process.env;
      await new Promise<void>((resolve, reject) =>
        execFile(
          process.execPath,
          ["--no-node-snapshot", "--import", "tsx", file],
          { cwd: project.dir, env: { ...env, NO_COLOR: "1" }, timeout: 110_000 },
          (err, stdout, stderr) =>
            err
              ? reject(new Error(`${where(block)}: ${err.message}\n${stdout.slice(-3000)}\n${stderr}`))
              : resolve(),
        ),
      );
    });
});

describe("shell blocks in the docs", () => {
  const cliDoc = fs.readFileSync(path.join(ROOT, "docs", "cli.md"), "utf8");
  const commands = new Set([...cliDoc.matchAll(/^## `([^`]+)`$/gm)].map((m) => m[1]));
  const groups = new Set([...commands].map((c) => c.split(" ").slice(0, -1).join(" ")).filter((c) => c));

  test("every `proving ...` command names a command of docs/cli.md", () => {
    const shell = blocks.filter((b) => ["sh", "bash", "shell", "console"].includes(b.lang));
    assert.ok(shell.length > 0);
    const bad: string[] = [];
    let seen = 0;
    for (const b of shell)
      for (const m of b.code.matchAll(/(?:^|[\s;&|(])proving((?:\s+[a-z][a-z-]*)+)/gm)) {
        const words = m[1].trim().split(/\s+/);
        let name = "proving";
        for (const w of words) {
          if (!groups.has(name) && name !== "proving") break;
          if (!commands.has(`${name} ${w}`)) break;
          name = `${name} ${w}`;
        }
        seen++;
        if (name === "proving" || groups.has(name)) bad.push(`${where(b)}: proving ${words.join(" ")}`);
      }
    assert.ok(seen > 0, "some shell block runs proving");
    assert.deepEqual(bad, [], "commands docs/cli.md does not document");
  });
});
