#!/usr/bin/env node
// Builds the package: dist/ gets the JavaScript and .d.ts that `tsc -p tsconfig.build.json` emits
// from src/ (imports rewritten from .ts to .js), plus every non-TypeScript file under src/ (the HTML
// report's browser scripts, read at run time next to the module that inlines them). dist/ is
// removed first, so a deleted source file never lingers in a package.
//   node scripts/build.mjs            (npm run build; npm's `prepare` runs it on install and pack)
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const src = path.join(root, "src");
const dist = path.join(root, "dist");

fs.rmSync(dist, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
try {
  execFileSync(process.execPath, [tsc, "-p", path.join(root, "tsconfig.build.json")], { stdio: "inherit" });
} catch {
  console.error("build: tsc failed");
  process.exit(1);
}

let copied = 0;
for (const entry of fs.readdirSync(src, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || /\.[cm]?ts$/.test(entry.name)) continue;
  const from = path.join(entry.parentPath, entry.name);
  const to = path.join(dist, path.relative(src, from));
  fs.mkdirSync(path.dirname(to), { recursive: true });
  fs.copyFileSync(from, to);
  copied++;
}
console.log(`build: dist/ from src/ (${copied} asset file${copied === 1 ? "" : "s"} copied)`);
