/**
 * The clean-start check covers what a `cmd-jsonl:`/`cmd:` agent can reach (issue 17): before its program
 * starts, nothing an earlier episode of the agent left may be there — its private directory, a process
 * of it (found by the episode id in its environment, or its working directory). What is found is
 * removed and the new trial is `contaminated` (isolation.cleanStart "failed"); the trial after it is
 * clean again. A process that cleared its environment (`env -i`) but sits in its private directory is
 * still found and killed with its trial. Unsandboxed here (bubblewrap's PID namespace would end such
 * processes anyway): this is what holds where bwrap is not available.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { resolveCmdJsonlAgent } from "../../src/agents/cmd/jsonl-agent.ts";
import type { ResolvedAgent } from "../../src/agents/resolve.ts";
import type { TrialRecord } from "../../src/core/contracts.ts";
import { defaultGym } from "../../src/gym/default-gym.ts";
import { parseExperiment } from "../../src/runner/experiment.ts";
import { runExperiment } from "../../src/runner/run.ts";
import { REPO_ROOT } from "../support/cli.ts";
import { alive, sleepers } from "./processes.ts";

const LEAVES = path.join(import.meta.dirname, "fixtures", "leaves.mjs");
const gym = defaultGym();
let runs = 0;

function agent(args = ""): ResolvedAgent {
  return resolveCmdJsonlAgent(`node ${LEAVES} ${args}`.trim(), "cmd-jsonl:leaves", REPO_ROOT, {
    PATH: process.env.PATH,
    PROVING_AGENT_SANDBOX: "off",
  });
}

async function trial(
  resolved: ResolvedAgent,
): Promise<{ record: TrialRecord; told?: { episodeId: string; cwd: string } }> {
  const config = parseExperiment({
    id: `clean-start-${runs++}`,
    worlds: ["device-support@1"],
    families: ["approved-replacement"],
    difficulties: [1],
    trials: 1,
    agents: [resolved.ref.spec],
    budget: { maxSteps: 1, wallTimeoutMs: 20_000 },
  });
  const records: TrialRecord[] = [];
  await runExperiment(config, { ...gym.runOptions(), agents: [resolved], onTrial: (r) => records.push(r) });
  assert.equal(records.length, 1);
  const record = records[0]!;
  const reason = record.steps[0]?.action.args.reason;
  return { record, ...(typeof reason === "string" ? { told: JSON.parse(reason) } : {}) };
}

const linux = process.platform === "linux" ? false : "reads /proc";

describe("the clean start of a cmd-jsonl: agent", { skip: linux }, () => {
  test("a process of an earlier episode still running: the next trial is contaminated, the process killed, the one after clean", async () => {
    const resolved = agent();
    const first = await trial(resolved);
    assert.equal(first.record.isolation?.cleanStart, "passed");
    assert.ok(first.told, `${first.record.outcome}: ${first.record.reason}`);
    // what a kill at the end of the trial could miss: a process carrying the ended episode's id
    const survivor = spawn("sleep", ["3191"], {
      detached: true,
      stdio: "ignore",
      env: { PATH: process.env.PATH, PROVING_EPISODE_ID: first.told.episodeId },
    });
    survivor.unref();
    try {
      await new Promise((r) => setTimeout(r, 50));
      assert.ok(alive(survivor.pid!));
      const second = await trial(resolved);
      assert.equal(second.record.outcome, "contaminated", second.record.reason);
      assert.match(second.record.reason, /1 process\(es\) of an earlier episode still running/);
      assert.equal(second.record.isolation?.cleanStart, "failed");
      assert.equal(second.record.fault, undefined, "an isolation failure is no one's error");
      assert.equal(second.record.steps.length, 0, "the agent never played");
      await new Promise((r) => setTimeout(r, 50));
      assert.equal(alive(survivor.pid!), false, "the leftover was killed");
      const third = await trial(resolved);
      assert.equal(third.record.isolation?.cleanStart, "passed");
      assert.notEqual(third.record.outcome, "contaminated", third.record.reason);
    } finally {
      try {
        process.kill(survivor.pid!, "SIGKILL");
      } catch {
        // killed by the check
      }
    }
  });

  test("an earlier episode's private directory back in place: the next trial is contaminated and it is removed", async () => {
    const resolved = agent();
    const first = await trial(resolved);
    assert.ok(first.told);
    assert.equal(fs.existsSync(first.told.cwd), false, "removed with its trial");
    fs.mkdirSync(first.told.cwd);
    fs.writeFileSync(path.join(first.told.cwd, "answers.json"), "{}");
    try {
      const second = await trial(resolved);
      assert.equal(second.record.outcome, "contaminated", second.record.reason);
      assert.match(
        second.record.reason,
        /private directory of earlier episode\(s\) ep-[0-9a-f]+ is still there/,
      );
      assert.equal(second.record.isolation?.cleanStart, "failed");
      assert.equal(fs.existsSync(first.told.cwd), false);
      const third = await trial(resolved);
      assert.equal(third.record.isolation?.cleanStart, "passed");
    } finally {
      fs.rmSync(first.told.cwd, { recursive: true, force: true });
    }
  });

  test("a setsid child that cleared its environment (env -i) is still found by its working directory and ends with its trial", async () => {
    const resolved = agent("3192");
    const first = await trial(resolved);
    assert.ok(first.told, `${first.record.outcome}: ${first.record.reason}`);
    assert.deepEqual(sleepers("3192"), [], "nothing of the trial outlives it");
    const second = await trial(resolved);
    assert.equal(second.record.isolation?.cleanStart, "passed", second.record.reason);
    assert.deepEqual(sleepers("3192"), []);
  });
});
