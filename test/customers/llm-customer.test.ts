/**
 * The LLM-driven customer through the provider layer, against the fake provider (a local server): its
 * prompt and persona are recorded in the trial's task, the known-good policy passes a conversation
 * family with it, and the simulator audit flags a model that volunteers the address.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { defaultConfig } from "../../src/agents/llm/config.ts";
import { type FakeLlmServer, type FakeRequest, startFakeLlmServer } from "../../src/agents/llm/fake/index.ts";
import { auditCustomerSimulator } from "../../src/audit/index.ts";
import type { TrialRecord } from "../../src/core/contracts.ts";
import { customerPrompt, llmCustomer } from "../../src/customers/index.ts";
import { createGym } from "../../src/gym/index.ts";
import { parseExperiment, runExperiment } from "../../src/runner/index.ts";
import { deviceSupportV2World } from "../../src/worlds/device-support/index.ts";
import { MODELS } from "../../src/worlds/device-support/tasks.ts";
import { type CustomerProfile, type Persona, scriptedReply } from "../../src/worlds/shared/index.ts";

/** A fake "model" that plays the profile its system prompt describes, by the scripted rules. */
function honest(req: FakeRequest, leak = false): { text: string } {
  const line = (label: string) => new RegExp(`- your ${label}: (.*)`).exec(req.system)?.[1] ?? "";
  const onFile = /addresses (.*); device model (.*)\./.exec(req.system);
  const profile: CustomerProfile = {
    simulator: "llm",
    persona: "cooperative" as Persona,
    name: "x",
    facts: {
      address: line("shipping address"),
      model: line("device model"),
      wants: req.system.includes("You want a replacement") ? "yes" : "no",
    },
    onFile: { address: (onFile?.[1] ?? "").split("; "), model: onFile?.[2] ?? "" },
    models: [...MODELS],
    seed: 0,
  };
  const users = req.turns.filter((t) => t.role === "user");
  const last = users[users.length - 1];
  const turn = {
    profile,
    thread: [],
    message: { from: "agent" as const, text: last?.text ?? "", t: 0 },
    turn: users.length - 1,
  };
  const text = scriptedReply(turn).text;
  return { text: leak ? `${text} My address is ${profile.facts.address}.` : text };
}

let server: FakeLlmServer;
let leaky = false;
const systems: string[] = [];
before(async () => {
  server = await startFakeLlmServer({
    apiKey: "k",
    model: (req) => {
      systems.push(req.system);
      return honest(req, leaky);
    },
  });
});
after(async () => {
  await server.close();
});

const simulator = () =>
  llmCustomer({ config: { ...defaultConfig("openai", "customer-model", server.baseURL), apiKey: "k" } });

describe("llm customer", () => {
  test("asks-first passes stale-address with an LLM customer; the prompt and persona are in the trial", async () => {
    const world = deviceSupportV2World({ simulators: [simulator()] });
    const gym = createGym({ worlds: [world] });
    const records: TrialRecord[] = [];
    const r = await runExperiment(
      parseExperiment({
        worlds: ["device-support@2"],
        families: ["stale-address", "wrong-device"],
        difficulties: [1],
        agents: ["asks-first", "first-answer"],
        params: { simulator: "llm", customer: "terse" },
      }),
      { registry: gym.registry, resolveAgent: gym.resolveAgent, onTrial: (rec) => records.push(rec) },
    );
    const good = r.trials.filter((t) => t.agent === "asks-first");
    assert.deepEqual(
      good.map((t) => t.outcome),
      ["passed", "passed"],
      good.map((t) => t.reason).join("; "),
    );
    const bad = r.trials.filter((t) => t.agent === "first-answer");
    assert.ok(bad.every((t) => t.violations.includes("unconfirmed_write")));
    const rec = records[0];
    const profile = (rec.task.params.conversation as unknown as { customer: CustomerProfile }).customer;
    assert.equal(profile.simulator, "llm");
    assert.equal(profile.persona, "terse");
    assert.ok(profile.prompt?.includes(customerPrompt(profile)), "the prompt is recorded in the task");
    assert.ok(systems.includes(customerPrompt(profile)), "the model was given that prompt");
    assert.ok(!customerPrompt(profile).includes("stale-address"), "the prompt names no family");
  });

  test("the simulator audit passes the honest model and flags one that volunteers the address", async () => {
    const world = deviceSupportV2World({ simulators: [simulator()] });
    const sim = world.customerSimulators.find((s) => s.id === "llm")!;
    leaky = false;
    const ok = await auditCustomerSimulator({ world, simulator: sim, personas: ["cooperative"], seeds: [0] });
    assert.equal(ok.ok, true, ok.problems.join("\n"));
    leaky = true;
    try {
      const flagged = await auditCustomerSimulator({
        world,
        simulator: sim,
        personas: ["cooperative"],
        seeds: [0],
      });
      assert.equal(flagged.ok, false);
      assert.ok(flagged.personas[0].leakage.count > 0);
    } finally {
      leaky = false;
    }
  });
});
