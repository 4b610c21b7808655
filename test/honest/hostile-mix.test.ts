/**
 * Issue 17, "done when": a 200-trial run mixing a well-behaved module agent with each bad one records
 * every planned trial (in the store, too), the bad ones as `agent_error` or `timeout` with their
 * reason, and the good one's trials exactly as in a run without the bad ones: same outcomes, verdicts
 * and trajectory hashes. Every agent runs isolated (a worker thread per episode), as `proving run` runs
 * module agents.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import { loadModuleAgent, type ResolvedAgent } from "../../src/agents/resolve.ts";
import type { TrialRecord } from "../../src/core/contracts.ts";
import { defaultGym } from "../../src/gym/default-gym.ts";
import { parseExperiment } from "../../src/runner/experiment.ts";
import { runExperiment } from "../../src/runner/run.ts";
import { openStore } from "../../src/store/open-store.ts";
import { REPO_ROOT } from "../support/cli.ts";

const HOSTILE = path.join(REPO_ROOT, "test", "agents", "fixtures", "hostile");
const GOOD = path.join(REPO_ROOT, "examples", "policy.mjs");
const FAMILIES = ["approved-replacement", "needs-approval", "denied", "lost-reply", "timeout-before-commit"];
const SEEDS = 5;

/** Each bad agent, the outcome all its trials must have and what their reason must say. */
const BAD: Array<{ file: string; id: string; outcomes: string[]; reason: RegExp }> = [
  { file: "exits.mjs", id: "exits", outcomes: ["agent_error"], reason: /exited \(code 0\)/ },
  { file: "uncaught.mjs", id: "uncaught", outcomes: ["agent_error"], reason: /boom from a timer/ },
  { file: "unhandled.mjs", id: "unhandled", outcomes: ["agent_error"], reason: /nobody handles me/ },
  // out of memory, or (on a loaded machine, the collector thrashing near the cap) past the deadline first
  {
    file: "memory-hog.mjs",
    id: "memory-hog",
    outcomes: ["agent_error", "timeout"],
    reason: /out of memory|wall-clock timeout/,
  },
  // a first act() whose synchronous part never ends (waiting on a lock, so it burns no CPU meanwhile)
  { file: "blocks.mjs", id: "blocks", outcomes: ["timeout"], reason: /wall-clock timeout during act\(\)/ },
  // a cycle, a BigInt, a throwing getter, toJSON or a Proxy in its args, by case
  { file: "bad-args.mjs", id: "bad-args", outcomes: ["agent_error"], reason: /not plain JSON/ },
  { file: "garbage.mjs", id: "garbage", outcomes: ["agent_error"], reason: /without a string `tool`/ },
];

const gym = defaultGym();
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "proving-hostile-mix-"));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

async function agents(files: string[]): Promise<ResolvedAgent[]> {
  return Promise.all(
    files.map((file) =>
      loadModuleAgent(file, REPO_ROOT, file.endsWith("memory-hog.mjs") ? { maxHeapMb: 32 } : {}),
    ),
  );
}

async function run(id: string, resolved: ResolvedAgent[], storeFile?: string) {
  const config = parseExperiment({
    id,
    worlds: ["device-support@1"],
    families: FAMILIES,
    difficulties: [1],
    trials: SEEDS,
    agents: resolved.map((a) => a.ref.spec),
    budget: { maxSteps: 30, wallTimeoutMs: 4000 },
  });
  const store = storeFile ? await openStore(storeFile) : undefined;
  const records: TrialRecord[] = [];
  try {
    const result = await runExperiment(config, {
      ...gym.runOptions(),
      agents: resolved,
      concurrency: 8,
      ...(store ? { store } : {}),
      onTrial: (r) => records.push(r),
    });
    const stored = store ? await store.listTrials(result.experimentId) : [];
    const missing = store ? await store.missingTrials(result.experimentId) : [];
    return { result, records, stored, missing };
  } finally {
    await store?.close();
  }
}

const cell = (r: TrialRecord) => `${r.spec.family}/${r.spec.seed}`;

describe("a 200-trial run: one well-behaved module agent among seven bad ones", () => {
  test("every planned trial is recorded, the bad ones as agent_error/timeout, the good ones as without them", async (t) => {
    const resolved = await agents([GOOD, ...BAD.map((b) => path.join(HOSTILE, b.file))]);
    const goodId = resolved[0]!.ref.id;
    assert.deepEqual(
      resolved.slice(1).map((a) => a.ref.id),
      BAD.map((b) => b.id),
    );
    const t0 = performance.now();
    const mixed = await run("hostile-mix", resolved, path.join(dir, "mixed.db"));
    const seconds = (performance.now() - t0) / 1000;
    const planned = FAMILIES.length * SEEDS * resolved.length;
    assert.equal(planned, 200);

    // every planned trial has exactly one record, returned and stored; none is missing
    assert.equal(mixed.result.trials.length, planned);
    assert.equal(mixed.result.trials.filter((t) => t.outcome === "missing").length, 0);
    assert.equal(mixed.records.length, planned);
    assert.equal(new Set(mixed.records.map((r) => r.spec.id)).size, planned);
    assert.equal(mixed.stored.length, planned);
    assert.deepEqual(mixed.missing, []);

    for (const bad of BAD) {
      const mine = mixed.records.filter((r) => r.spec.agent.id === bad.id);
      assert.equal(mine.length, FAMILIES.length * SEEDS, bad.id);
      for (const r of mine) {
        assert.ok(bad.outcomes.includes(r.outcome), `${bad.id} ${cell(r)}: ${r.outcome} ${r.reason}`);
        assert.match(r.reason, bad.reason, `${bad.id} ${cell(r)}`);
        assert.equal(r.fault, r.outcome === "agent_error" ? "agent" : undefined, `${bad.id} ${cell(r)}`);
      }
    }
    const outcomes: Record<string, number> = {};
    for (const r of mixed.records) outcomes[r.outcome] = (outcomes[r.outcome] ?? 0) + 1;
    t.diagnostic(`200-trial mixed run: ${seconds.toFixed(1)} s, ${JSON.stringify(outcomes)}`);
    // what was stored reads back, and running the experiment again (as `proving resume` does) runs nothing
    const again = await run("hostile-mix", resolved, path.join(dir, "mixed.db"));
    assert.equal(again.result.ranNow, 0);
    assert.deepEqual(
      again.result.trials.map((x) => [x.trialId, x.outcome, x.trajectoryHash]),
      mixed.result.trials.map((x) => [x.trialId, x.outcome, x.trajectoryHash]),
    );
    // the by-case bad args hit more than one way of not being JSON
    const kinds = new Set(
      mixed.records.filter((r) => r.spec.agent.id === "bad-args").map((r) => r.reason.replace(/\d+/g, "")),
    );
    assert.ok(kinds.size >= 3, [...kinds].join(" | "));

    // the well-behaved agent, alone, on the same tasks and seeds
    const alone = await run("hostile-mix-alone", resolved.slice(0, 1));
    assert.equal(alone.records.length, FAMILIES.length * SEEDS);
    const byCell = new Map(alone.records.map((r) => [cell(r), r]));
    const good = mixed.records.filter((r) => r.spec.agent.id === goodId);
    assert.equal(good.length, FAMILIES.length * SEEDS);
    for (const r of good) {
      const solo = byCell.get(cell(r));
      assert.ok(solo, cell(r));
      assert.equal(r.outcome, "passed", `${cell(r)}: ${r.reason}`);
      assert.equal(r.outcome, solo.outcome, cell(r));
      assert.deepEqual(r.verdict, solo.verdict, cell(r));
      assert.equal(r.trajectoryHash, solo.trajectoryHash, cell(r));
      assert.deepEqual(r.isolation, { cleanStart: "passed", afterEnd: "passed" }, cell(r));
    }
  });
});
