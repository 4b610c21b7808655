/**
 * The docs' library example (docs/library.md: a gym with a custom world and a custom rule) runs as it is
 * written: the world module (`<!-- file: counter-world.ts -->`) and the program after the
 * `example: custom-gym` marker, in a project set up as the page tells a user to (test/docs/project.ts),
 * with `proving-ground` resolving to this checkout's source, in a child process of its own.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { test } from "node:test";
import { allBlocks, namedExample } from "../docs/blocks.ts";
import { createDocsProject } from "../docs/project.ts";

test("the docs' custom-gym example runs: the custom rule changes the outcome, the verifier does not", async () => {
  const main = namedExample("custom-gym");
  const world = allBlocks().find((b) => b.note === "file: counter-world.ts");
  assert.ok(world, "docs/library.md has the counter-world.ts block");
  const lines = (main.code + world.code)
    .split("\n")
    .filter((l) => l.trim() !== "" && !l.trim().startsWith("//"));
  // biome formats code at 110 columns; the world and the program together
  assert.ok(lines.length <= 100, `the example stays short (${lines.length} lines as formatted)`);
  const project = createDocsProject();
  try {
    project.write("counter-world.ts", world.code);
    const file = project.write("main.ts", main.code);
    const { NODE_TEST_CONTEXT: _, ...env } = process.env;
    const out = await new Promise<string>((resolve, reject) =>
      execFile(
        process.execPath,
        ["--import", "tsx", file],
        { cwd: project.dir, env, timeout: 120_000 },
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
    project.dispose();
  }
});
