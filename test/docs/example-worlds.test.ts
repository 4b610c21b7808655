/**
 * Every example world passes the conformance check (`checkEnvironment` + `assertConformant`): each
 * docs block marked `<!-- file: NAME.ts -->` that defines a world (`defineToolWorld`) is written into
 * a project set up as docs/library.md tells a user to and imported, and every world it exports is
 * checked; so is every world a module under examples/ exports.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, describe, test } from "node:test";
import { pathToFileURL } from "node:url";
import type { WorldDefinition } from "../../src/core/index.ts";
import { assertConformant, checkEnvironment } from "../../src/testing/index.ts";
import { allBlocks, ROOT } from "./blocks.ts";
import { createDocsProject } from "./project.ts";

const project = createDocsProject();
after(() => project.dispose());

const isWorld = (v: unknown): v is WorldDefinition =>
  typeof v === "object" &&
  v !== null &&
  typeof (v as WorldDefinition).id === "string" &&
  typeof (v as WorldDefinition).generateTask === "function" &&
  typeof (v as WorldDefinition).create === "function";

const modules: { where: string; file: string }[] = [];
for (const b of allBlocks()) {
  const name = /^file:\s*(\S+)/.exec(b.note)?.[1];
  if (name) {
    const file = project.write(name, b.code);
    if (/defineToolWorld\s*[<(]/.test(b.code)) modules.push({ where: `${b.file}:${b.line}`, file });
  }
}
for (const f of fs.readdirSync(path.join(ROOT, "examples"))) {
  const file = path.join(ROOT, "examples", f);
  if (/\.(m?js|ts)$/.test(f) && /defineToolWorld\s*[<(]|WorldDefinition/.test(fs.readFileSync(file, "utf8")))
    modules.push({ where: `examples/${f}`, file });
}

describe("example worlds are conformant", () => {
  test("the docs have at least one example world", () => assert.ok(modules.length > 0));
  for (const { where, file } of modules)
    test(where, { timeout: 120_000 }, async () => {
      const mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
      const worlds = Object.values(mod).filter(isWorld);
      assert.ok(worlds.length > 0, `${where} exports a world`);
      for (const world of worlds) assertConformant(await checkEnvironment(world, { seeds: [0, 1] }));
    });
});
