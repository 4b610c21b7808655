/**
 * The presets of the one checker give the verdicts the four old checks gave: `selftest` and `audit`
 * on every built-in world and on the broken worlds their tests use, and the curriculum's quality gate
 * on each family (`verdicts.fixture.json`, recorded by `record-verdicts.ts` before the change) — but
 * for the one change the single null agent makes on purpose (see TRIVIAL_NOW_CAUGHT).
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import { test } from "node:test";
import { auditEnvironment } from "../../src/audit/index.ts";
import { gateTask } from "../../src/curriculum/index.ts";
import { runSelftest } from "../../src/testing/index.ts";
import { collectVerdicts, type Verdicts } from "./verdicts.ts";

/** A vault whose verifier passes any submitted count: the audit's null agent always caught it; the gate now does too. */
const TRIVIAL_NOW_CAUGHT = "vault-null-passes@1";

const recorded = JSON.parse(
  fs.readFileSync(new URL("./verdicts.fixture.json", import.meta.url), "utf8"),
) as Verdicts;

test("selftest, audit and the quality gate give the recorded verdicts on every world", async () => {
  const now = JSON.parse(JSON.stringify(await collectVerdicts({ runSelftest, auditEnvironment, gateTask })));
  for (const world of Object.keys(recorded.selftest))
    assert.deepEqual(now.selftest[world], recorded.selftest[world], `selftest of ${world}`);
  for (const world of Object.keys(recorded.audit))
    assert.deepEqual(now.audit[world], recorded.audit[world], `audit of ${world}`);
  for (const world of Object.keys(recorded.gate)) {
    if (world === TRIVIAL_NOW_CAUGHT) continue;
    assert.deepEqual(now.gate[world], recorded.gate[world], `quality gate of ${world}`);
  }
  // the one deliberate change: the gate's old null agent called a tool no world has until its 3 steps
  // ran out (budget_exhausted, which never passes), so it could not find a trivial task; the one null
  // agent ends the episode with the terminal tool, and a world that passes that is trivial
  const [was] = recorded.gate[TRIVIAL_NOW_CAUGHT] as { verdict: { status: string; contentHash: string } }[];
  assert.equal(was.verdict.status, "accepted");
  assert.deepEqual(now.gate[TRIVIAL_NOW_CAUGHT], [
    { ...was, verdict: { status: "rejected", contentHash: was.verdict.contentHash, reason: "trivial" } },
  ]);
  assert.deepEqual(Object.keys(now).sort(), Object.keys(recorded).sort());
});
