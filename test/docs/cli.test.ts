/**
 * docs/cli.md is every command's own `--help`, as scripts/cli-docs.ts renders it from the commander
 * program (one child process: the program is built, nothing runs). Regenerate with `npm run docs:cli`.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { ROOT } from "./blocks.ts";

test("docs/cli.md is up to date with the commands' --help (npm run docs:cli)", {
  timeout: 60_000,
}, async () => {
  const { NODE_TEST_CONTEXT: _, ...env } = process.env;
  const result = await new Promise<{ code: number; stderr: string }>((resolve) =>
    execFile(
      process.execPath,
      ["--no-node-snapshot", "--import", "tsx", path.join(ROOT, "scripts", "cli-docs.ts"), "--check"],
      { cwd: ROOT, env, timeout: 50_000 },
      (err, _stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, stderr }),
    ),
  );
  assert.equal(result.code, 0, `${result.stderr}docs/cli.md is out of date: run npm run docs:cli`);
});

test("docs/cli.md documents every command, and the README links it", () => {
  const doc = fs.readFileSync(path.join(ROOT, "docs", "cli.md"), "utf8");
  for (const dir of fs.readdirSync(path.join(ROOT, "src", "cli", "commands"))) {
    const m = /^([a-z-]+)\.ts$/.exec(dir);
    if (!m || !fs.readFileSync(path.join(ROOT, "src", "cli", "commands", dir), "utf8").includes(".command("))
      continue;
    // a subcommand in a file of its own: train-curriculum.ts is `proving train curriculum`
    const names = [m[1], m[1].replace("-", " ")];
    assert.ok(
      names.some((n) => new RegExp(`^## \`proving ${n}\``, "m").test(doc)),
      `proving ${names.join(" or proving ")}`,
    );
  }
  assert.match(fs.readFileSync(path.join(ROOT, "README.md"), "utf8"), /docs\/cli\.md/);
});
