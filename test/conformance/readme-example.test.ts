/**
 * The README's "Testing your own world" example runs as it is written: the block after the
 * `readme-example: testing` marker, its `proving-ground` imports pointed at this checkout's source,
 * imported into this test file (its node:test tests become this file's tests).
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const readme = fs.readFileSync(path.join(ROOT, "README.md"), "utf8");
const marker = readme.indexOf("<!-- readme-example: testing");
assert.ok(marker >= 0, "README has a readme-example: testing block");
const block = /```ts\n([\s\S]*?)```/.exec(readme.slice(marker));
assert.ok(block, "a ts code block follows the marker");
const code = block[1];
assert.ok(code.split("\n").filter((l) => l.trim()).length <= 20, "the example stays short");
assert.ok(code.includes('from "proving-ground/testing"'), "it imports the testing area");

const source = (area: string) => pathToFileURL(path.join(ROOT, "src", area, "index.ts")).href;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pg-readme-testing-"));
try {
  const file = path.join(dir, "example.mts");
  fs.writeFileSync(
    file,
    code.replace(/from "proving-ground\/([a-z]+)"/g, (_, area: string) => `from "${source(area)}"`),
  );
  assert.doesNotMatch(fs.readFileSync(file, "utf8"), /"proving-ground/, "every import points at the source");
  await import(pathToFileURL(file).href);
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
