/**
 * The README stays a front page: at most ~200 lines, the quickstart's two commands as CI runs them,
 * and every page under docs/ reachable from it (linked from the README or from a page it links).
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { docFiles, ROOT } from "./blocks.ts";

const readme = fs.readFileSync(path.join(ROOT, "README.md"), "utf8");

test("the README is at most 200 lines", () => {
  const lines = readme.trimEnd().split("\n").length;
  assert.ok(lines <= 200, `${lines} lines`);
});

test("the quickstart has the two set-up commands", () => {
  const quickstart = readme.slice(readme.indexOf("## Quickstart"));
  const block = /```sh\n([\s\S]*?)```/.exec(quickstart)?.[1] ?? "";
  const commands = block
    .split("\n")
    .map((l) => l.replace(/#.*$/, "").trim())
    .filter(Boolean);
  assert.deepEqual(commands, ["npm install && npm start", "npm test"]);
});

test("every docs page is reachable from the README", () => {
  const seen = new Set<string>(["README.md"]);
  const queue = ["README.md"];
  while (queue.length > 0) {
    const file = queue.shift() as string;
    const text = fs.readFileSync(path.join(ROOT, file), "utf8");
    for (const m of text.matchAll(/\]\(([^)#\s]+\.md)(?:#[^)]*)?\)/g)) {
      if (/^[a-z]+:/.test(m[1])) continue;
      const target = path.relative(ROOT, path.resolve(path.dirname(path.join(ROOT, file)), m[1]));
      if (!seen.has(target) && fs.existsSync(path.join(ROOT, target))) {
        seen.add(target);
        queue.push(target);
      }
    }
  }
  assert.deepEqual(
    docFiles().filter((f) => !seen.has(f)),
    [],
  );
});
