/**
 * The agent-module example of docs/agents.md runs as written: saved as `my-policy.mjs` in a fresh
 * directory and played by `proving run --agent ./my-policy.mjs --family denied`, every trial passes
 * (an agent that read `observation.context` on every step would end each trial `agent_error`, since
 * only the first observation has a context).
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { parseJson, runCli } from "../support/cli.ts";
import { namedExample } from "./blocks.ts";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pg-docs-agent-"));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

interface RunJson {
  planned: number;
  outcomes: Record<string, number>;
  trials: { agent: string; family: string; outcome: string; violations: string[] }[];
}

test("docs/agents.md's module agent passes every denied task", { timeout: 240_000 }, async () => {
  const block = namedExample("agent-module");
  assert.equal(block.lang, "js");
  fs.writeFileSync(path.join(dir, "my-policy.mjs"), block.code);
  const r = await runCli(
    ["run", "--agent", "./my-policy.mjs", "--family", "denied", "--trials", "2", "--json", "--no-progress"],
    { cwd: dir, env: { PROVING_STORE: path.join(dir, "proving.db") } },
  );
  assert.equal(r.code, 0, r.stderr);
  const doc = parseJson<RunJson>(r);
  assert.equal(doc.planned, 2 * 3, "2 seeds × the default difficulties 1-3");
  assert.deepEqual(new Set(doc.trials.map((t) => t.agent)), new Set(["my-policy"]));
  assert.equal(doc.outcomes.passed, doc.planned, JSON.stringify(doc.outcomes));
  assert.deepEqual(
    doc.trials.flatMap((t) => t.violations),
    [],
  );
});
