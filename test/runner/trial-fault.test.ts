/**
 * Who is at fault: a trial that an error ended records whose error it was (`fault`) beside its
 * outcome and reason; a world that throws is the world's fault (`world_crashed`), an agent that
 * throws or answers junk is the agent's, a failed provider is infrastructure's, a bad configuration
 * is the configuration's. Outcomes no error caused carry no fault.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { ResolvedAgent } from "../../src/agents/resolve.ts";
import type { Agent, AgentAction, Environment, Observation, TrialRecord } from "../../src/core/contracts.ts";
import { configError, ProvingError } from "../../src/core/errors.ts";
import type { WorldDefinition } from "../../src/core/registry.ts";
import { parseExperiment } from "../../src/runner/experiment.ts";
import { runExperiment } from "../../src/runner/run.ts";
import { runTrial } from "../../src/runner/trial.ts";
import { openStore } from "../../src/store/open-store.ts";
import {
  goodToyAgent,
  overshooter,
  quitter,
  type ToyBugs,
  toyRegistry,
  toyWorld,
} from "../support/toy-world.ts";
import { trialSpec } from "../support/trial-spec.ts";

function agent(next: (turn: number) => unknown): Agent {
  return {
    id: "hand-made",
    start() {
      let turn = 0;
      return { act: async (_obs: Observation) => next(turn++) as AgentAction };
    },
  };
}

const peekForever = agent(() => ({ tool: "peek", args: {} }));

/** The toy world with its environment changed by `patch` (a world that misbehaves in a given way). */
function patchedWorld(patch: (env: Environment) => void, bugs: ToyBugs = {}): WorldDefinition {
  const base = toyWorld(bugs);
  return {
    ...base,
    create: () => {
      const env = base.create();
      patch(env);
      return env;
    },
  };
}

async function run(a: Agent, world: WorldDefinition = toyWorld(), overrides = {}): Promise<TrialRecord> {
  const record = await runTrial(trialSpec(overrides), { world, agent: a });
  assert.deepStrictEqual(JSON.parse(JSON.stringify(record)), record, "a record is plain JSON");
  return record;
}

describe("the world's fault", () => {
  test("a step that throws → infra_error, the world at fault, the reason kept", async () => {
    const r = await run(peekForever, toyWorld({ stepThrows: true }));
    assert.equal(r.outcome, "infra_error");
    assert.equal(r.fault, "world");
    assert.equal(r.reason, "world crashed: toy: step exploded");
    assert.equal(r.steps.length, 1);
  });

  test("a reset that throws → infra_error, the world at fault; the agent is never started", async () => {
    let started = 0;
    const a: Agent = {
      id: "s",
      start() {
        started++;
        return { act: async () => ({ tool: "peek", args: {} }) };
      },
    };
    const r = await run(a, toyWorld({ resetThrows: true }));
    assert.equal(r.outcome, "infra_error");
    assert.equal(r.fault, "world");
    assert.match(r.reason, /^world crashed: toy: reset exploded/);
    assert.equal(started, 0);
  });

  test("a task generator that throws → infra_error, the world at fault", async () => {
    const r = await run(peekForever, toyWorld(), { family: "no-such-family" });
    assert.equal(r.outcome, "infra_error");
    assert.equal(r.fault, "world");
  });

  test("an evaluate() that throws at the end of the episode → infra_error, the world at fault, no verdict", async () => {
    const world = patchedWorld((env) => {
      const step = env.step.bind(env);
      env.step = async (action) => {
        const result = await step(action);
        const { verdict: _v, ...info } = result.info;
        return { ...result, info };
      };
      env.evaluate = () => {
        throw new Error("verifier exploded");
      };
    });
    const r = await run(goodToyAgent, world);
    assert.equal(r.outcome, "infra_error");
    assert.equal(r.fault, "world");
    assert.equal(r.reason, "world crashed: verifier exploded");
    assert.equal(r.verdict, undefined);
  });

  test("a world that throws a ProvingError is blamed as the error says: infrastructure, config", async () => {
    const down = patchedWorld((env) => {
      env.step = async () => {
        throw new ProvingError("remote_unreachable", "the backing service is down");
      };
    });
    const r = await run(peekForever, down);
    assert.equal(r.outcome, "infra_error");
    assert.equal(r.fault, "infrastructure");
    assert.equal(r.reason, "remote_unreachable: the backing service is down");

    const misconfigured = patchedWorld((env) => {
      env.reset = async () => {
        throw configError("capability_missing", "the rule needs time control");
      };
    });
    const c = await run(peekForever, misconfigured);
    assert.equal(c.outcome, "infra_error");
    assert.equal(c.fault, "config");
    assert.equal(c.reason, "capability_missing: the rule needs time control");
  });

  test("the fault survives the store: the saved record still says the world was at fault", async () => {
    const store = await openStore(":memory:");
    try {
      const config = parseExperiment({
        id: "exp-fault",
        worlds: ["toy@1"],
        families: ["reach"],
        difficulties: [1],
        agents: ["peek"],
        trials: 2,
      });
      const crashing = toyRegistry({ stepThrows: true });
      const result = await runExperiment(config, {
        registry: crashing,
        store,
        agents: [{ ref: { id: "peek", kind: "test", spec: "peek" }, forWorld: () => peekForever }],
      });
      assert.deepEqual(
        result.trials.map((t) => t.outcome),
        ["infra_error", "infra_error"],
      );
      for (const t of result.trials) {
        const saved = await store.getTrial(t.trialId);
        assert.equal(saved?.fault, "world");
        assert.match(saved?.reason ?? "", /^world crashed: /);
      }
    } finally {
      await store.close();
    }
  });
});

describe("the agent's fault, and infrastructure's", () => {
  test("an act() that throws, returns junk, or a start() that throws → agent_error, the agent at fault", async () => {
    const throws = agent(() => {
      throw new Error("policy bug");
    });
    const junk = agent(() => ({ tool: 5 }));
    const noStart: Agent = {
      id: "x",
      start() {
        throw new Error("cannot start");
      },
    };
    for (const a of [throws, junk, noStart]) {
      const r = await run(a);
      assert.equal(r.outcome, "agent_error", r.reason);
      assert.equal(r.fault, "agent");
    }
  });

  test("an agent's ProvingError: an agent code → agent_error (agent); a provider failure → infra_error (infrastructure)", async () => {
    const gone = await run(
      agent(() => {
        throw new ProvingError("agent_disconnected", "the client left");
      }),
    );
    assert.equal(gone.outcome, "agent_error");
    assert.equal(gone.fault, "agent");
    const provider = await run(
      agent(() => {
        throw new ProvingError("provider_server_error", "503 after 5 retries");
      }),
    );
    assert.equal(provider.outcome, "infra_error");
    assert.equal(provider.fault, "infrastructure");
    assert.equal(provider.reason, "provider_server_error: 503 after 5 retries");
  });

  test("a planned trial whose agent cannot be built for its world is recorded with the error's fault", async () => {
    const config = parseExperiment({
      id: "exp-unbuildable",
      worlds: ["toy@1"],
      families: ["reach"],
      difficulties: [1],
      agents: ["picky"],
      trials: 1,
    });
    const picky: ResolvedAgent = {
      ref: { id: "picky", kind: "test", spec: "picky" },
      forWorld: () => {
        throw configError("unknown_agent", "picky plays no toy world");
      },
    };
    const records: TrialRecord[] = [];
    await runExperiment(config, {
      registry: toyRegistry(),
      agents: [picky],
      onTrial: (r) => records.push(r),
    });
    assert.equal(records.length, 1);
    assert.equal(records[0].outcome, "infra_error");
    assert.equal(records[0].fault, "config");
    assert.match(records[0].reason, /^cannot start the trial: picky plays no toy world/);
  });
});

describe("outcomes no error caused carry no fault", () => {
  test("passed, failed, violated, budget_exhausted, timeout", async () => {
    const hangs = agent((turn) => (turn === 0 ? { tool: "peek", args: {} } : new Promise(() => {})));
    const cases: [Agent, object, string][] = [
      [goodToyAgent, {}, "passed"],
      [quitter, {}, "failed"],
      [overshooter, {}, "violated"],
      [peekForever, { budget: { maxSteps: 3 } }, "budget_exhausted"],
      [hangs, { budget: { maxSteps: 50, wallTimeoutMs: 50 } }, "timeout"],
    ];
    for (const [a, overrides, outcome] of cases) {
      const r = await run(a, toyWorld(), overrides);
      assert.equal(r.outcome, outcome, r.reason);
      assert.equal("fault" in r, false, `${outcome} has no fault`);
    }
  });

  test("contaminated: no fault, even when an agent error came first", async () => {
    const dirty = await run(goodToyAgent, toyWorld({ foreignJobOnReset: true }));
    assert.equal(dirty.outcome, "contaminated");
    assert.equal("fault" in dirty, false);
    // a job of another episode fires while the agent runs; then the agent throws: the isolation
    // failure is what the trial records, and it is no one's error
    const thenThrows = agent((turn) => {
      if (turn === 0) return { tool: "add", args: { n: 1 } };
      if (turn === 1) return { tool: "wait", args: { seconds: 60 } };
      throw new Error("policy bug");
    });
    const r = await run(thenThrows, toyWorld({ misownedJobs: true }));
    assert.equal(r.outcome, "contaminated", r.reason);
    assert.equal("fault" in r, false);
  });
});
