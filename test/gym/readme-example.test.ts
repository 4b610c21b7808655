/**
 * The README's library example (a gym with a custom world and a custom rule) is run as it is written:
 * the block after the `readme-example: custom-gym` marker, with `proving-ground` pointing at this
 * checkout's source, in a child process of its own.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

function readmeExample(name: string): string {
  const readme = fs.readFileSync(path.join(ROOT, "README.md"), "utf8");
  const marker = readme.indexOf(`<!-- readme-example: ${name}`);
  assert.ok(marker >= 0, `README has a readme-example: ${name} block`);
  const block = /```ts\n([\s\S]*?)```/.exec(readme.slice(marker));
  assert.ok(block, "a ts code block follows the marker");
  return block[1];
}

test("the README's custom-gym example runs: the custom rule changes the outcome, the verifier does not", async () => {
  const code = readmeExample("custom-gym");
  const lines = code.split("\n").filter((l) => l.trim() !== "" && !l.trim().startsWith("//"));
  // biome formats the README's code blocks at 110 columns; the example is 30 lines unwrapped
  assert.ok(lines.length <= 80, `the example stays short (${lines.length} lines as formatted)`);
  const src = pathToFileURL(path.join(ROOT, "src/index.ts")).href;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pg-readme-"));
  try {
    const file = path.join(dir, "example.mts");
    fs.writeFileSync(file, code.replaceAll('from "proving-ground"', `from "${src}"`));
    const { NODE_TEST_CONTEXT: _, ...env } = process.env;
    const out = await new Promise<string>((resolve, reject) =>
      execFile(
        process.execPath,
        ["--import", "tsx", file],
        { cwd: ROOT, env, timeout: 120_000 },
        (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout)),
      ),
    );
    const rows = out
      .trim()
      .split("\n")
      .slice(0, -1)
      .map((l) => l.split(" "));
    assert.equal(rows.length, 2 * 2 * 3 * 2, "2 agents × 2 variants × 3 difficulties × 2 trials");
    const outcomes = (agent: string, bare: boolean) =>
      new Set(rows.filter((r) => r[0] === agent && (r[1] === "bare") === bare).map((r) => r[3]));
    assert.deepEqual(outcomes("steady", true), new Set(["passed"]));
    assert.deepEqual(outcomes("steady", false), new Set(["passed"]));
    assert.deepEqual(outcomes("hasty", true), new Set(["passed"]), "hasty passes on the bare world");
    assert.deepEqual(outcomes("hasty", false), new Set(["failed"]), "the custom rule refuses its big add");
    assert.equal(out.trim().split("\n").at(-1), '["rule.small-steps@1"]');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
