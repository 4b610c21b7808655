/**
 * `proving train transfer` and `proving train rig` through the real CLI, small: `--json` documents
 * (schemaVersion 1), the evaluations and rig rollouts recorded in the store under `--id`, the HTML
 * report's sections, and a used id refused.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { openStore } from "../../src/store/open-store.ts";
import type { RigCheckpointResult, TransferResult } from "../../src/train/index.ts";
import { parseJson, runCli } from "../support/cli.ts";

let dir: string;
before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "proving-train-"));
});
after(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

const VARIANT = JSON.stringify({
  world: "device-support@1",
  layers: [{ id: "rule.lose-reply-after-commit@1", params: { tool: "create_replacement", times: 1 } }],
});

async function experiments(db: string): Promise<string[]> {
  const store = await openStore(db);
  try {
    return (await store.listExperiments()).map((e) => e.id);
  } finally {
    await store.close();
  }
}

test("proving train transfer --variant --json: both arms, evaluations in the store, the Transfer section", async () => {
  const db = path.join(dir, "t.db");
  const report = path.join(dir, "t.html");
  const args = ["train", "transfer", "--episodes", "30", "--warmup", "10", "--seeds", "1,2"];
  const r = await runCli([
    ...args,
    "--variant",
    VARIANT,
    "--eval-seeds",
    "9001",
    "--id",
    "tx",
    "--store",
    db,
    "--report",
    report,
    "--json",
  ]);
  assert.equal(r.code, 0, r.stderr);
  const doc = parseJson<TransferResult & { files: { result: string; report: string } }>(r);
  assert.equal(doc.schemaVersion, 1);
  assert.equal(doc.kind, "train.transfer");
  assert.deepEqual(doc.seeds, [1, 2]);
  assert.equal(doc.seedsWithVariants, 2);
  assert.deepEqual(
    doc.arms.map((a) => a.arm),
    ["warm", "base", "variants"],
  );
  assert.ok(fs.existsSync(doc.files.result));
  const ids = await experiments(db);
  for (const seed of [1, 2])
    for (const arm of ["warm", "base", "variants"])
      assert.ok(ids.includes(`tx-s${seed}-${arm}-eval`), ids.join(" "));
  const html = fs.readFileSync(report, "utf8");
  assert.match(html, /<section id="transfer">/);
  assert.match(html, /data-arm="difference"/);
  const again = await runCli([...args, "--variant", VARIANT, "--id", "tx", "--store", db, "--no-report"]);
  assert.notEqual(again.code, 0);
  assert.match(again.stderr, /stored already/);
});

test("proving train rig --json: a rig per checkpoint, recorded, with the answer", async () => {
  const db = path.join(dir, "r.db");
  const r = await runCli([
    "train",
    "rig",
    "--checkpoints",
    "0,20",
    "--seeds",
    "1",
    "--eval-seeds",
    "9001",
    "--rig-rollouts",
    "8",
    "--baseline-trials",
    "1",
    "--id",
    "rx",
    "--store",
    db,
    "--no-report",
    "--json",
  ]);
  assert.equal(r.code, 0, r.stderr);
  const doc = parseJson<RigCheckpointResult>(r);
  assert.equal(doc.schemaVersion, 1);
  assert.equal(doc.kind, "train.rig");
  assert.deepEqual(
    doc.perSeed[0].checkpoints.map((c) => c.checkpoint),
    [0, 20],
  );
  assert.ok(doc.perSeed[0].checkpoints[0].finding.diagnoses.length > 0);
  assert.match(doc.answer, /top weakness changed/);
  const ids = await experiments(db);
  assert.ok(ids.includes("rx-s1-c0-baseline"), ids.join(" "));
  assert.ok(ids.includes("rx-s1-c20-eval"), ids.join(" "));
});

test("proving train transfer: a world without admissible actions or a bad learner is refused in one line", async () => {
  const r = await runCli(["train", "transfer", "--learner", "dqn", "--store", path.join(dir, "x.db")]);
  assert.notEqual(r.code, 0);
  assert.match(r.stderr, /--learner: q or pg/);
});
