/**
 * Outcome honesty: every planned trial stays in the denominator of the success rate, whatever became
 * of it (timeout, infra error, never ran), and the rate that leaves infrastructure failures out only
 * ever appears beside the first one, with the number it left out.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import type { ResolvedAgent } from "../../src/agents/resolve.ts";
import type { Agent, AgentAction, Environment, Observation } from "../../src/core/contracts.ts";
import { ProvingError } from "../../src/core/errors.ts";
import { defaultGym } from "../../src/gym/index.ts";
import { summarizeExperiment } from "../../src/report/summary.ts";
import { renderTerminalReport } from "../../src/report/terminal.ts";
import { parseExperiment } from "../../src/runner/experiment.ts";
import { resumeExperiment } from "../../src/runner/resume.ts";
import { runExperiment } from "../../src/runner/run.ts";
import { openStore } from "../../src/store/open-store.ts";

let dir: string;
before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "proving-honest-"));
});
after(() => fs.rmSync(dir, { recursive: true, force: true }));

const registry = defaultGym().registry;
const world = registry.world("device-support@1");
const cautious = world.policies.cautious;

type Misbehaviour = "hang" | "garbage" | "loop" | "none";

/** The family of each device-support task (d1–d5, seeds 0–15) by its instruction (instructions differ per task). */
const FAMILY_BY_INSTRUCTION = new Map<string, string>();
for (const f of world.families)
  for (const difficulty of f.difficulties)
    for (let seed = 0; seed < 16; seed++)
      FAMILY_BY_INSTRUCTION.set(world.generateTask({ family: f.name, difficulty, seed }).instruction, f.name);
const familyOf = (instruction: string): string => FAMILY_BY_INSTRUCTION.get(instruction) ?? "";

/** The known-good policy, except on the families given, where it misbehaves. */
function agentThat(id: string, misbehave: Record<string, Misbehaviour>): ResolvedAgent {
  const agent: Agent = {
    id,
    async start(ep) {
      // the runner tells no agent its task's family: this test agent finds it from the instruction
      const family = familyOf(ep.instruction);
      const how = misbehave[family] ?? "none";
      const inner = await cautious.start(ep);
      return {
        act(obs: Observation): Promise<AgentAction> {
          if (how === "hang") return new Promise<AgentAction>(() => {});
          if (how === "garbage") return Promise.resolve(42 as unknown as AgentAction);
          if (how === "loop") return Promise.resolve({ tool: "get_case", args: { case_id: "C-1" } });
          return inner.act(obs);
        },
      };
    },
  };
  return { ref: { id, kind: "test", spec: id }, forWorld: () => agent };
}

/** Device-support, except that on the families given every step after the first crashes the world. */
function crashingOn(families: string[]) {
  return (spec: { family: string }): Environment => {
    const env = world.create();
    if (!families.includes(spec.family)) return env;
    const step = env.step.bind(env);
    let calls = 0;
    env.step = async (action) => {
      if (++calls > 1) throw new ProvingError("remote_unreachable", "the backing service is down");
      return step(action);
    };
    return env;
  };
}

describe("every planned trial stays in the denominator", () => {
  test("a timeout counts as planned and not passed (5 of 10 → 50%, Wilson [23.66%, 76.34%])", async () => {
    const config = parseExperiment({
      id: "timeouts",
      families: ["approved-replacement", "lost-reply"],
      difficulties: [1],
      trials: 5,
      agents: ["x"],
      budget: { wallTimeoutMs: 1500 },
    });
    const result = await runExperiment(config, {
      registry,
      concurrency: 10,
      agents: [agentThat("hangs-on-lost-reply", { "lost-reply": "hang" })],
    });
    const s = summarizeExperiment(result.trials);
    assert.equal(s.planned, 10);
    assert.equal(s.ran, 10);
    assert.equal(s.outcomes.timeout, 5);
    assert.equal(s.outcomes.passed, 5);
    assert.equal(s.pass_rate.estimate, 0.5, "passed / planned, timeouts included");
    // Wilson 95% for 5/10 (z = 1.959964): (0.5 ± 1.959964·sqrt(0.025 + 0.0096))/1.38415 = [0.23659, 0.76341]
    assert.ok(Math.abs(s.pass_rate.ci[0] - 0.23659) < 5e-5 && Math.abs(s.pass_rate.ci[1] - 0.76341) < 5e-5);
    assert.equal(s.pass_rate_excluding_infra, undefined, "a timeout is not an infrastructure failure");
    for (const t of result.trials.filter((x) => x.outcome === "timeout")) {
      assert.match(t.reason, /wall-clock timeout during act\(\)/);
    }
  });

  test("infra errors count as planned; the rate without them appears only beside, with the count", async () => {
    const config = parseExperiment({
      id: "infra",
      families: ["approved-replacement", "denied"],
      difficulties: [1],
      trials: 4,
      agents: ["cautious"],
    });
    const result = await runExperiment(config, {
      registry,
      concurrency: 4,
      environment: crashingOn(["denied"]),
    });
    const s = summarizeExperiment(result.trials);
    assert.equal(s.planned, 8);
    assert.equal(s.outcomes.infra_error, 4);
    assert.equal(s.pass_rate.estimate, 0.5, "4 passed / 8 planned");
    assert.ok(s.pass_rate_excluding_infra, "the second rate is there…");
    assert.equal(s.pass_rate_excluding_infra.excluded, 4, "…with the number it leaves out");
    assert.equal(s.pass_rate_excluding_infra.estimate, 1);
    assert.equal(s.infra_error_rate, 0.5);
    const text = renderTerminalReport("infra", s, { tty: false });
    const main = text.indexOf("pass rate (passed / planned): 50.0%");
    const beside = text.indexOf("excluding 4 infra-error/missing trial(s): 100.0%");
    assert.ok(main >= 0 && beside > main, `the headline comes first, the other rate beside it:\n${text}`);
  });

  test("trials that never ran count as missing, in the denominator; resume runs exactly those", async () => {
    const file = path.join(dir, "missing.db");
    const config = parseExperiment({
      id: "missing",
      families: ["approved-replacement", "needs-approval"],
      difficulties: [1],
      trials: 4,
      agents: ["cautious"],
    });
    const controller = new AbortController();
    let store = await openStore(file);
    let seen = 0;
    const before = new Map<string, string>();
    try {
      const first = await runExperiment(config, {
        registry,
        store,
        concurrency: 1,
        signal: controller.signal,
        onTrial: (r) => {
          before.set(r.spec.id, r.finishedAt);
          if (++seen === 3) controller.abort();
        },
      });
      const s = summarizeExperiment(first.trials);
      assert.equal(first.interrupted, true);
      assert.equal(s.planned, 8);
      assert.equal(s.ran, 3);
      assert.equal(s.outcomes.missing, 5);
      assert.equal(s.pass_rate.estimate, 3 / 8, "3 passed / 8 planned, not 3 / 3");
      assert.equal(s.pass_rate_excluding_infra?.excluded, 5);
      assert.equal((await store.getExperiment("missing"))?.status, "interrupted");
      assert.equal((await store.missingTrials("missing")).length, 5);
    } finally {
      await store.close();
    }
    store = await openStore(file);
    try {
      const ranNow: string[] = [];
      const resumed = await resumeExperiment("missing", {
        registry,
        store,
        onTrial: (r) => ranNow.push(r.spec.id),
      });
      assert.equal(resumed.previousStatus, "interrupted");
      assert.equal(resumed.previouslyRecorded, 3);
      assert.equal(resumed.ranNow, 5);
      assert.equal(ranNow.filter((id) => before.has(id)).length, 0, "no recorded trial ran again");
      assert.equal((await store.getExperiment("missing"))?.status, "completed");
      const rows = await store.listTrials("missing");
      assert.equal(rows.length, 8);
      for (const [id, finishedAt] of before) assert.equal((await store.getTrial(id))?.finishedAt, finishedAt);
      assert.equal(summarizeExperiment(resumed.trials).pass_rate.estimate, 1);
    } finally {
      await store.close();
    }
  });

  test("every kind of ending is one outcome of one planned trial, and only `passed` is a success", async () => {
    const config = parseExperiment({
      id: "mixed",
      families: ["approved-replacement", "needs-approval", "denied", "lost-reply", "delayed-receipt"],
      difficulties: [1],
      trials: 3,
      agents: ["x"],
      budget: { wallTimeoutMs: 1500, maxSteps: 25 },
    });
    const agent = agentThat("mixed", {
      "needs-approval": "garbage",
      denied: "loop",
      "lost-reply": "hang",
    });
    const result = await runExperiment(config, {
      registry,
      concurrency: 15,
      agents: [agent],
      environment: crashingOn(["delayed-receipt"]),
    });
    const s = summarizeExperiment(result.trials);
    assert.deepEqual(Object.fromEntries(Object.entries(s.outcomes).filter(([, n]) => n > 0)), {
      passed: 3,
      agent_error: 3,
      budget_exhausted: 3,
      timeout: 3,
      infra_error: 3,
    });
    assert.equal(
      Object.values(s.outcomes).reduce((a, b) => a + b, 0),
      s.planned,
    );
    assert.equal(new Set(result.trials.map((t) => t.trialId)).size, 15);
    assert.equal(s.pass_rate.estimate, 3 / 15);
    for (const t of result.trials) assert.ok(t.reason.length > 0, `${t.outcome} without a reason`);
  });

  test("an agent that cannot even be bound to the world still leaves one record per planned trial", async () => {
    const broken: ResolvedAgent = {
      ref: { id: "broken", kind: "test", spec: "broken" },
      forWorld: () => {
        throw new Error("no such model");
      },
    };
    const config = parseExperiment({
      id: "unbound",
      families: ["denied"],
      difficulties: [1, 2],
      trials: 2,
      agents: ["x"],
    });
    const result = await runExperiment(config, { registry, agents: [broken] });
    assert.deepEqual(
      result.trials.map((t) => t.outcome),
      [0, 1, 2, 3].map(() => "infra_error"),
    );
    assert.match(result.trials[0].reason, /cannot start the trial: no such model/);
    assert.equal(summarizeExperiment(result.trials).pass_rate.estimate, 0);
  });
});

describe("the plan is fixed and recorded", () => {
  test("the budget is part of the experiment record and of every planned trial", async () => {
    const store = await openStore(path.join(dir, "budget.db"));
    try {
      const config = parseExperiment({
        id: "budget",
        families: ["denied"],
        difficulties: [1],
        agents: ["cautious"],
        budget: { maxSteps: 40, wallTimeoutMs: 5000, maxVirtualSeconds: 3600 },
      });
      await runExperiment(config, { registry, store });
      const exp = await store.getExperiment("budget");
      assert.deepEqual(exp?.config.budget, { maxSteps: 40, wallTimeoutMs: 5000, maxVirtualSeconds: 3600 });
      for (const spec of await store.getManifest("budget")) assert.deepEqual(spec.budget, exp?.config.budget);
    } finally {
      await store.close();
    }
  });

  test("a cell listed twice cannot be planned (or counted) twice", async () => {
    await assert.rejects(
      runExperiment(parseExperiment({ id: "dup", families: ["denied", "denied"], agents: ["cautious"] }), {
        registry,
      }),
      (err: unknown) => err instanceof ProvingError && err.code === "duplicate_trial",
    );
  });

  test("an experiment id cannot be run again with a different plan", async () => {
    const store = await openStore(path.join(dir, "conflict.db"));
    try {
      const base = { id: "conflict", families: ["denied"], difficulties: [1], agents: ["cautious"] };
      await runExperiment(parseExperiment({ ...base, trials: 1 }), { registry, store });
      await assert.rejects(
        runExperiment(parseExperiment({ ...base, trials: 2 }), { registry, store }),
        (err: unknown) => err instanceof ProvingError && err.code === "experiment_conflict",
      );
      const same = await runExperiment(parseExperiment({ ...base, trials: 1, concurrency: 3 }), {
        registry,
        store,
      });
      assert.equal(same.ranNow, 0, "the same plan at another concurrency is the same experiment");
    } finally {
      await store.close();
    }
  });
});
