/**
 * The presets of the one checker give the verdicts the four old checks gave: `selftest` and `audit`
 * on every built-in world and on the broken worlds their tests use, and the curriculum's quality gate
 * on each family (`verdicts.fixture.json`, recorded by `record-verdicts.ts` before the change).
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import { test } from "node:test";
import { auditEnvironment } from "../../src/audit/index.ts";
import { gateTask } from "../../src/curriculum/index.ts";
import { runSelftest } from "../../src/runner/index.ts";
import { collectVerdicts, type Verdicts } from "./verdicts.ts";

const recorded = JSON.parse(
  fs.readFileSync(new URL("./verdicts.fixture.json", import.meta.url), "utf8"),
) as Verdicts;

test("selftest, audit and the quality gate give the recorded verdicts on every world", async () => {
  const now = JSON.parse(JSON.stringify(await collectVerdicts({ runSelftest, auditEnvironment, gateTask })));
  for (const world of Object.keys(recorded.selftest))
    assert.deepEqual(now.selftest[world], recorded.selftest[world], `selftest of ${world}`);
  for (const world of Object.keys(recorded.audit))
    assert.deepEqual(now.audit[world], recorded.audit[world], `audit of ${world}`);
  for (const world of Object.keys(recorded.gate))
    assert.deepEqual(now.gate[world], recorded.gate[world], `quality gate of ${world}`);
  assert.deepEqual(Object.keys(now).sort(), Object.keys(recorded).sort());
});
