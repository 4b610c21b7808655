/**
 * Every relative link in README.md, CONTRIBUTING.md, BENCHMARKS.md, CHANGELOG.md and docs/**.md
 * points at a file of the repository, and every `#anchor` at a heading (or an explicit `<a id>`) of
 * the page it names, as GitHub renders them.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { docFiles, ROOT } from "./blocks.ts";

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");

function anchors(file: string): Set<string> {
  const text = fs.readFileSync(file, "utf8").replace(/^```[\s\S]*?^```/gm, "");
  const out = new Set<string>();
  for (const m of text.matchAll(/^#+\s+(.*)$/gm)) {
    let s = slug(m[1]);
    for (let i = 1; out.has(s); i++) s = `${slug(m[1])}-${i}`;
    out.add(s);
  }
  for (const m of text.matchAll(/<a id="([^"]+)"/g)) out.add(m[1]);
  return out;
}

test("relative links and anchors in the docs resolve", () => {
  const files = [...docFiles(), "CONTRIBUTING.md", "BENCHMARKS.md", "CHANGELOG.md"];
  const broken: string[] = [];
  for (const file of files) {
    const text = fs.readFileSync(path.join(ROOT, file), "utf8").replace(/^```[\s\S]*?^```/gm, "");
    for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const href = m[1];
      if (/^[a-z]+:/.test(href)) continue;
      const [target, hash] = href.split("#");
      const resolved = target
        ? path.resolve(path.dirname(path.join(ROOT, file)), target)
        : path.join(ROOT, file);
      if (!fs.existsSync(resolved)) broken.push(`${file}: ${href} (no such file)`);
      else if (hash && resolved.endsWith(".md") && !anchors(resolved).has(hash))
        broken.push(`${file}: ${href} (no such heading)`);
    }
  }
  assert.deepEqual(broken, []);
});
