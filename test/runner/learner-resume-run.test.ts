/**
 * A plain run with an agent that learns (`learner:q`), stopped part way and run again on its store,
 * continues with the policy it had: the learner plays the recorded trials again in memory first, so
 * its final policy is the uninterrupted run's, and nothing recorded runs twice.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { defaultGym } from "../../src/gym/default-gym.ts";
import { parseExperiment } from "../../src/runner/experiment.ts";
import { runExperiment } from "../../src/runner/run.ts";
import { openStore } from "../../src/store/index.ts";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "proving-learner-run-"));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

const gym = defaultGym();
const config = (id: string) =>
  parseExperiment({
    id,
    worlds: ["device-support@1"],
    difficulties: [1],
    trials: 3,
    seed: 7,
    agents: ["learner:q?seed=5&eps=0.3"],
    budget: { maxSteps: 30 },
  });

async function run(id: string, file: string, stopAfter?: number) {
  const store = await openStore(path.join(dir, file));
  const abort = new AbortController();
  let seen = 0;
  try {
    return await runExperiment(config(id), {
      ...gym.runOptions(),
      store,
      cwd: dir,
      signal: abort.signal,
      onTrial: () => {
        if (stopAfter !== undefined && ++seen >= stopAfter) abort.abort();
      },
    });
  } finally {
    await store.close();
  }
}

test("a resumed learner run ends with the uninterrupted run's policy; no trial runs twice", async () => {
  const whole = await run("whole", "whole.db");
  assert.equal(whole.interrupted, false);
  const planned = whole.manifest.length;
  assert.ok(planned >= 8, `${planned} trials`);
  const wanted = whole.policies?.[0]?.policy;
  assert.ok(wanted, "the learner saved its policy");

  const first = await run("parts", "parts.db", 5);
  assert.equal(first.interrupted, true);
  assert.equal(first.ranNow, 5);
  assert.notEqual(first.policies?.[0]?.policy, wanted, "stopped early: not yet the whole run's policy");
  const second = await run("parts", "parts.db");
  assert.equal(second.interrupted, false);
  assert.equal(second.ranNow, planned - 5, "the recorded trials are not run (or recorded) again");
  assert.equal(second.policies?.[0]?.policy, wanted);
  assert.deepEqual(
    second.trials.map((t) => t.outcome),
    whole.trials.map((t) => t.outcome),
  );
});
