/**
 * One list of the package's exports: the table after `<!-- exports -->` in docs/library.md names
 * exactly package.json's `exports` keys, in the same order; CONTRIBUTING.md carries no copy of its own
 * and points at that page.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { ROOT } from "./blocks.ts";

const read = (file: string) => fs.readFileSync(path.join(ROOT, file), "utf8");
const pkg = JSON.parse(read("package.json")) as { name: string; exports: Record<string, unknown> };

/** The first cell of each row of the table right after the `<!-- exports -->` marker. */
function documentedImports(): string[] {
  const doc = read("docs/library.md");
  const at = doc.indexOf("<!-- exports -->");
  assert.ok(at >= 0, "docs/library.md has an <!-- exports --> table");
  const lines = doc.slice(at).split("\n").slice(1);
  const start = lines.findIndex((l) => l.startsWith("|"));
  const table = lines.slice(
    start,
    lines.findIndex((l, i) => i > start && !l.startsWith("|")),
  );
  return table.slice(2).map((row) => /^\|\s*`([^`]+)`/.exec(row)?.[1] ?? `(unreadable row) ${row}`);
}

test("docs/library.md lists exactly package.json's exports", () => {
  const expected = Object.keys(pkg.exports).map((k) => (k === "." ? pkg.name : `${pkg.name}/${k.slice(2)}`));
  assert.deepEqual(documentedImports(), expected, "edit the table in docs/library.md to match package.json");
});

test("CONTRIBUTING.md has no export list of its own and points at docs/library.md and docs/design.md", () => {
  const contributing = read("CONTRIBUTING.md");
  assert.doesNotMatch(contributing, /`\.\/core`, `\.\/harness`/, "no copy of the subpath list");
  assert.match(contributing, /docs\/library\.md/);
  assert.match(contributing, /docs\/design\.md/);
});

test("nothing points at a DESIGN.md the repository does not have", () => {
  for (const file of ["CONTRIBUTING.md", "README.md", "src/core/contracts.ts"])
    assert.doesNotMatch(read(file), /(?<!docs\/)DESIGN\.md/, `${file} names DESIGN.md`);
});

test("every function and class docs/library.md's entry-point table names is exported by proving-ground", async () => {
  const doc = read("docs/library.md");
  const at = doc.indexOf("## Entry points");
  assert.ok(at >= 0, "docs/library.md has an Entry points section");
  const rows = doc
    .slice(at)
    .split("\n")
    .filter((l) => l.startsWith("| `"));
  const names = new Set<string>();
  for (const row of rows) {
    const first = row.split(/(?<!\\)\|/)[1];
    for (const m of first.matchAll(/`([A-Za-z_$][\w$]*)(?=[(`])/g)) names.add(m[1]);
  }
  assert.ok(names.size >= 20, `${names.size} names`);
  const root = (await import("../../src/index.ts")) as Record<string, unknown>;
  assert.deepEqual(
    [...names].filter((n) => !(n in root)),
    [],
    "named in docs/library.md but not exported",
  );
});
