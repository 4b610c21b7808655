/**
 * Issue 17: an in-process agent whose first act() has a synchronous part that outlasts the trial's
 * wall-clock budget (it spins, then returns or rejects) ends that trial as `timeout`; the runner's own
 * deadline never becomes an unhandled rejection, and the next trial runs as usual. (Module agents run
 * isolated, where a spin is stopped with its thread: test/agents/module-isolation.test.ts.)
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { ResolvedAgent } from "../../src/agents/resolve.ts";
import type { Agent, TrialRecord } from "../../src/core/contracts.ts";
import { defaultGym } from "../../src/gym/default-gym.ts";
import { parseExperiment } from "../../src/runner/experiment.ts";
import { runExperiment } from "../../src/runner/run.ts";

const spinFor = (ms: number) => {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // the synchronous part of act()
  }
};

function spinner(id: string, then: "resolve" | "reject"): ResolvedAgent {
  const agent: Agent = {
    id,
    start: () => ({
      act(obs) {
        spinFor(300);
        if (then === "reject") return Promise.reject(new Error("late failure after the spin"));
        const caseId = obs.kind === "task" ? (obs.context as { case_id: string }).case_id : "C-1";
        return Promise.resolve({ tool: "get_case", args: { case_id: caseId } });
      },
    }),
  };
  return { ref: { id, kind: "module", spec: `./${id}.mjs` }, forWorld: () => agent };
}

test("a first act() that spins past the budget: timeout, no unhandled rejection, the run goes on", async () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  process.on("unhandledRejection", onUnhandled);
  try {
    const gym = defaultGym();
    const agents = [spinner("spins-resolves", "resolve"), spinner("spins-rejects", "reject")];
    const config = parseExperiment({
      worlds: ["device-support@1"],
      families: ["approved-replacement"],
      difficulties: [1],
      trials: 2,
      agents: agents.map((a) => a.ref.spec),
      budget: { maxSteps: 5, wallTimeoutMs: 100 },
    });
    const records: TrialRecord[] = [];
    const result = await runExperiment(config, {
      ...gym.runOptions(),
      agents,
      concurrency: 1,
      onTrial: (r) => records.push(r),
    });
    await new Promise((r) => setTimeout(r, 50)); // a turn for any late rejection to surface
    assert.equal(result.trials.length, 4);
    assert.equal(records.length, 4, "every trial recorded");
    for (const r of records) {
      assert.equal(r.outcome, "timeout", `${r.spec.agent.id}: ${r.reason}`);
      assert.match(r.reason, /wall-clock timeout/);
    }
    assert.deepEqual(unhandled, []);
  } finally {
    process.off("unhandledRejection", onUnhandled);
  }
});
