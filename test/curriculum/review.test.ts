/** `proving curriculum review`: the spot-check queue of pooled tasks and stored variants, and what review gates. */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import {
  approvedItems,
  curriculumConfig,
  defaultSplit,
  openCurriculumStore,
  runCurriculum,
  splitWithVariants,
  VARIANT_POOL,
} from "../../src/curriculum/index.ts";
import { defaultGym } from "../../src/gym/default-gym.ts";
import { parseJson, REPO_ROOT, runCli } from "../support/cli.ts";
import { weakResolved } from "./fixtures/weak-agent.ts";

interface ReviewJson {
  pool: string;
  items: number;
  unreviewed: number;
  sample: { kind: string; id: string; instruction?: string; params?: unknown; knownGood: string[] }[];
  decisions: { id: string; decision: string; note: string }[];
}

test("review fills the pool, shows items, records decisions; with review required only approved tasks are sampled", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "cur-review-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const store = join(dir, "p.db");
  // --seed fixes the pooled tasks' seeds (as `curriculum run --seed` does) and the sample
  const base = ["curriculum", "review", "--pool", "P", "--per-key", "1", "--seed", "4", "--store", store];
  const first = parseJson<ReviewJson>(await runCli([...base, "--sample", "3", "--json"]));
  assert.equal(first.pool, "P");
  assert.ok(first.items > 3);
  assert.equal(first.unreviewed, first.items);
  assert.equal(first.sample.length, 3);
  for (const item of first.sample) {
    assert.equal(item.kind, "task");
    assert.ok(item.instruction && item.instruction.length > 10, "the instruction is shown");
    assert.equal(typeof item.params, "object");
    assert.ok(item.knownGood.length > 0, "with the known-good trajectory");
  }
  const again = parseJson<ReviewJson>(await runCli([...base, "--sample", "3", "--json"]));
  assert.deepEqual(again.sample, first.sample, "the same seed shows the same sample; nothing regenerated");
  assert.equal(again.items, first.items);

  const [a, r] = first.sample;
  const decided = parseJson<ReviewJson>(
    await runCli([...base, "--approve", a.id, "--reject", r.id, "--note", "checked by hand", "--json"]),
  );
  assert.deepEqual(
    decided.decisions.map((d) => [d.id, d.decision, d.note]),
    [
      [a.id, "approve", "checked by hand"],
      [r.id, "reject", "checked by hand"],
    ],
  );
  assert.equal(decided.unreviewed, first.items - 2);
  assert.ok(!decided.sample.some((i) => i.id === a.id || i.id === r.id), "reviewed items leave the queue");
  const text = await runCli([...base, "--sample", "1"]);
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /known-good trajectory: \w+/);
  const bad = await runCli([...base, "--approve", "no/such/d1#1"]);
  assert.notEqual(bad.code, 0);
  assert.match(bad.stderr, /unknown_review_item|nothing to review/);

  // a run on pool P requiring review samples only the approved task
  const gym = defaultGym();
  const history = await openCurriculumStore(store);
  try {
    const config = curriculumConfig({
      id: "reviewed-run",
      split: defaultSplit([gym.world("device-support@1")]),
      agent: weakResolved.ref.spec,
      episodes: 6,
      seed: 4,
      evalEvery: 100,
      difficulty: false,
      pool: { id: "P", perKey: 1, requireReview: true, thread: false },
    });
    const run = await runCurriculum(config, { gym, history, agent: weakResolved });
    const ids = new Set(run.episodes.map((e) => `${e.world}/${e.family}/d${e.difficulty}#${e.seed}`));
    assert.deepEqual([...ids], [a.id]);
  } finally {
    await history.close();
  }
});

test("review --variants shows a stored variant with the known-good trajectory on it; review gates its sampling", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "cur-review-v-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const store = join(dir, "p.db");
  const gym = defaultGym();
  const variant = {
    world: "device-support@1",
    layers: [{ id: "rule.disable-tool@1", params: { tool: "check_warranty", hide: false } }],
  };
  const variantId = gym.harness.variantId(variant);
  const history = await openCurriculumStore(store);
  await history.addVariant({ variant, variantId, provenance: { by: "rigger" } });
  await history.close();

  const base = ["curriculum", "review", "--variants", "--store", store];
  const shown = parseJson<ReviewJson & { sample: { variant: unknown; provenance: unknown }[] }>(
    await runCli([...base, "--json"]),
  );
  assert.equal(shown.pool, VARIANT_POOL);
  assert.equal(shown.sample.length, 1);
  assert.equal(shown.sample[0].id, variantId);
  assert.deepEqual(shown.sample[0].variant, variant);
  assert.deepEqual(shown.sample[0].provenance, { by: "rigger" });
  assert.ok(shown.sample[0].knownGood.length > 0);

  const h = await openCurriculumStore(store);
  try {
    const split = defaultSplit([gym.world("device-support@1")]);
    const variants = await h.listVariants();
    const gated = { requireReview: true, approved: await approvedItems(h, VARIANT_POOL) };
    assert.equal(splitWithVariants(split, variants, gym, gated).dynamic.variants, undefined);
    const ok = await runCli([...base, "--approve", variantId, "--note", "looks right"]);
    assert.equal(ok.code, 0, ok.stderr);
    const approved = { requireReview: true, approved: await approvedItems(h, VARIANT_POOL) };
    assert.deepEqual(splitWithVariants(split, variants, gym, approved).dynamic.variants, [variant]);
  } finally {
    await h.close();
  }
});

test("on a terminal, review asks about each sampled item and records the answers with their notes", async (t) => {
  // `script` (util-linux) gives the CLI a pseudo-terminal as stdin; the answers are typed ahead
  const hasScript = spawnSync("script", ["--version"]).status === 0;
  if (!hasScript) {
    assert.ok(!process.env.CI, "CI needs `script` (util-linux) for the terminal test");
    t.skip("no `script` here");
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), "cur-review-tty-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const store = join(dir, "p.db");
  const { NODE_TEST_CONTEXT: _, ...childEnv } = process.env;
  const cmd = `${JSON.stringify(process.execPath)} bin/proving.mjs curriculum review --pool T --per-key 1 --sample 3 --store ${JSON.stringify(store)}`;
  const r = spawnSync("script", ["-qec", cmd, "/dev/null"], {
    cwd: REPO_ROOT,
    input: "a\nlooks fine\ns\nr\nodd params\n",
    timeout: 120_000,
    env: childEnv,
  });
  assert.equal(r.status, 0, String(r.stderr));
  assert.match(String(r.stdout), /approve, reject or skip\?/);
  const h = await openCurriculumStore(store);
  try {
    const reviews = await h.reviews("T");
    assert.deepEqual(reviews.map((x) => [x.decision, x.note]).sort(), [
      ["approve", "looks fine"],
      ["reject", "odd params"],
    ]);
  } finally {
    await h.close();
  }
});
