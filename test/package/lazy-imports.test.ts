/**
 * Heavy dependencies load only where they are used: importing an area of the library from the
 * source (each export of package.json, mapped from dist/ back to src/) loads none of the AI SDK, the
 * MCP SDK, hono, ws or vega unless that area is built on it (`HEAVY_ON_IMPORT`). Each import runs in
 * a fresh process whose module hooks record every package resolved, so a static import added
 * anywhere in an area's import graph fails here. `pack.test.ts` checks the installed package too.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import { describe, test } from "node:test";
import { REPO_ROOT } from "../support/cli.ts";
import { isHeavy, loadedPackages, unexpectedHeavy } from "./loaded-packages.ts";

const pkg = JSON.parse(fs.readFileSync(`${REPO_ROOT}package.json`, "utf8")) as {
  exports: Record<string, { import: string }>;
};

/** `./dist/core/index.js` → `src/core/index.ts`. */
function sourceOf(target: string): string {
  const m = /^\.\/dist\/(.+)\.js$/.exec(target);
  assert.ok(m, `export target ${target} is not under ./dist/`);
  return `${REPO_ROOT}src/${m[1]}.ts`;
}

describe("importing an area loads only the heavy dependencies it is built on", () => {
  for (const [subpath, target] of Object.entries(pkg.exports)) {
    test(`${subpath} (${sourceOf(target.import).slice(REPO_ROOT.length)})`, async () => {
      const loaded = await loadedPackages({ entry: sourceOf(target.import), cwd: REPO_ROOT, tsx: true });
      assert.deepEqual(unexpectedHeavy(subpath, loaded), [], `loaded: ${loaded.join(", ")}`);
    });
  }

  test("the core, harness, worlds and runner load no heavy dependency at all", async () => {
    for (const area of ["core", "harness", "worlds", "runner"]) {
      const loaded = await loadedPackages({
        entry: `${REPO_ROOT}src/${area}/index.ts`,
        cwd: REPO_ROOT,
        tsx: true,
      });
      assert.deepEqual(
        loaded.filter((p) => isHeavy(p)),
        [],
        `${area} loaded ${loaded.join(", ")}`,
      );
    }
  });
});

test("the CLI (`proving worlds --json`) loads no heavy dependency: each command loads its own", async () => {
  const loaded = await loadedPackages({
    entry: `${REPO_ROOT}bin/proving.mjs`,
    cwd: REPO_ROOT,
    argv: ["proving", "worlds", "--json"],
    // the flag the bin otherwise re-runs itself with (isolated-vm), so the CLI runs in this process
    nodeArgs: ["--no-node-snapshot"],
  });
  assert.ok(loaded.includes("commander"), `the CLI ran: ${loaded.join(", ")}`);
  assert.deepEqual(
    loaded.filter((p) => isHeavy(p)),
    [],
    `loaded: ${loaded.join(", ")}`,
  );
});

describe("the heavy dependencies do load where they are used (the probe sees them)", () => {
  test("rendering a report chart loads vega and vega-lite", async () => {
    const loaded = await loadedPackages({
      entry: `${REPO_ROOT}src/report/html/charts.ts`,
      cwd: REPO_ROOT,
      tsx: true,
      afterImport: `await m.renderSvg({ data: { values: [{ x: 1 }] }, mark: "point", encoding: { x: { field: "x", type: "quantitative" } } });`,
    });
    assert.ok(loaded.includes("vega") && loaded.includes("vega-lite"), loaded.join(", "));
  });

  test("the LLM agents' module loads the AI SDK", async () => {
    const loaded = await loadedPackages({
      entry: `${REPO_ROOT}src/agents/llm/index.ts`,
      cwd: REPO_ROOT,
      tsx: true,
    });
    assert.ok(loaded.includes("ai") && loaded.includes("@ai-sdk/openai"), loaded.join(", "));
  });
});
