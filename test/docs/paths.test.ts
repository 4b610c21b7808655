/**
 * The files the docs name exist: every `src/...`, `test/...`, `bench/...`, `examples/...`,
 * `scripts/...`, `clients/...` or `bin/...` path in backticks (no glob or placeholder in it) in
 * README.md, CONTRIBUTING.md, BENCHMARKS.md and docs/**.md. A moved file fails this test until the
 * docs follow it.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { docFiles, ROOT } from "./blocks.ts";

test("every repository path the docs name exists", () => {
  const missing: string[] = [];
  for (const file of [...docFiles(), "CONTRIBUTING.md", "BENCHMARKS.md"]) {
    const text = fs.readFileSync(path.join(ROOT, file), "utf8");
    for (const m of text.matchAll(/`((?:src|test|bench|examples|scripts|clients|bin)\/[^`\s]*)`/g)) {
      const p = m[1].replace(/[:#].*$/, "");
      if (/[*<>{}]/.test(p)) continue;
      if (!fs.existsSync(path.join(ROOT, p))) missing.push(`${file}: ${p}`);
    }
  }
  assert.deepEqual(missing, []);
});
