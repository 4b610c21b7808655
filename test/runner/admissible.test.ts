/**
 * Agents that choose among admissible actions (`usesAdmissibleActions`): the runner hands each `act`
 * the environment's current list (a copy), through harness layers too (a hidden, disabled tool is
 * left out); a world that declares none ends the trial infra_error with the config at fault.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type {
  ActContext,
  AdmissibleAction,
  Agent,
  AgentAction,
  Observation,
} from "../../src/core/contracts.ts";
import { Rng } from "../../src/core/rng.ts";
import { defaultGym } from "../../src/gym/default-gym.ts";
import { parseExperiment } from "../../src/runner/experiment.ts";
import { runExperiment } from "../../src/runner/run.ts";
import { runTrial } from "../../src/runner/trial.ts";
import { toyWorld } from "../support/toy-world.ts";
import { trialSpec } from "../support/trial-spec.ts";

/** Picks among the admissible actions (seeded) and keeps every list it was given. */
function listKeeper(seed: number): Agent & { lists: AdmissibleAction[][] } {
  const rng = Rng.seeded(seed);
  const lists: AdmissibleAction[][] = [];
  return {
    id: "list-keeper",
    usesAdmissibleActions: true,
    lists,
    start: () => ({
      async act(_o: Observation, context?: ActContext): Promise<AgentAction> {
        const given = context?.admissible ?? [];
        lists.push(structuredClone([...given]));
        const chosen = structuredClone(rng.pick(given));
        // the list is the agent's own copy: changing it changes nothing the world offers next
        if (given[0]) (given[0].args as Record<string, unknown>).tampered = true;
        return { tool: chosen.tool, args: chosen.args };
      },
    }),
  };
}

const gym = defaultGym();
const run = gym.runOptions();

describe("admissible actions reach the agent", () => {
  test("on a built-in world every act gets the current list, and the agent plays from it", async () => {
    const agent = listKeeper(1);
    const config = parseExperiment({
      worlds: ["device-support@1"],
      families: ["approved-replacement"],
      agents: ["list-keeper"],
      trials: 3,
      seed: 5,
      budget: { maxSteps: 12 },
    });
    const result = await runExperiment(config, {
      ...run,
      agents: [{ ref: { id: "list-keeper", kind: "test", spec: "list-keeper" }, forWorld: () => agent }],
      concurrency: 1,
    });
    assert.ok(agent.lists.length >= 3, "act was called");
    for (const list of agent.lists) {
      assert.ok(list.length > 0 && list.length <= 64);
      assert.ok(list.every((a) => typeof a.tool === "string" && a.args.tampered === undefined));
    }
    for (const t of result.trials) assert.notEqual(t.outcome, "infra_error");
  });

  test("through a harness layer: a hidden, disabled tool is not offered", async () => {
    const agent = listKeeper(2);
    const config = parseExperiment({
      worlds: ["device-support@1"],
      families: ["approved-replacement"],
      variants: [
        {
          world: "device-support@1",
          layers: [{ id: "rule.disable-tool@1", params: { tool: "check_warranty" } }],
        },
      ],
      agents: ["list-keeper"],
      trials: 2,
      budget: { maxSteps: 10 },
    });
    const result = await runExperiment(config, {
      ...run,
      agents: [{ ref: { id: "list-keeper", kind: "test", spec: "list-keeper" }, forWorld: () => agent }],
      concurrency: 1,
    });
    assert.ok(result.trials.every((t) => t.variantId !== undefined && t.outcome !== "infra_error"));
    const tools = new Set(agent.lists.flat().map((a) => a.tool));
    assert.ok(tools.has("get_case"), "the other tools are offered");
    assert.equal(tools.has("check_warranty"), false);
  });

  test("a world that declares no admissible actions: infra_error, the config at fault, before the agent acts", async () => {
    const agent = listKeeper(3);
    // the toy world, without the admissible actions it declares
    const toy = toyWorld();
    const world = {
      ...toy,
      create: () => {
        const env = toy.create();
        return Object.assign(env, { capabilities: { inspection: env.capabilities.inspection } });
      },
    };
    const record = await runTrial(trialSpec(), { world, agent });
    assert.equal(record.outcome, "infra_error");
    assert.equal(record.fault, "config");
    assert.match(record.reason, /declares none/);
    assert.equal(agent.lists.length, 0);
  });
});
