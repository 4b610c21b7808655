/**
 * One null agent (by identity, and no other definition of an agent with id `null` or of a `__noop__`
 * tool in src), what it does (ends the episode on its first step with the terminal tool), and the
 * seeded random and middling agents are deterministic.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import * as audit from "../../src/audit/index.ts";
import type { Agent, Observation } from "../../src/core/contracts.ts";
import * as curriculum from "../../src/curriculum/index.ts";
import { middlingAgent, NULL_AGENT, nullAgent, randomAgent } from "../../src/testing/index.ts";
import { vaultWorld } from "../audit/broken-worlds.ts";
import { REPO_ROOT } from "../support/cli.ts";

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sources(p) : /\.(ts|mts|mjs|js)$/.test(e.name) ? [p] : [];
  });
}

test("there is one null agent: every area hands out the same object", () => {
  assert.equal(nullAgent(), NULL_AGENT);
  assert.equal(audit.nullAgent(), NULL_AGENT);
  assert.equal(curriculum.NULL_AGENT, NULL_AGENT);
  assert.equal(NULL_AGENT.id, "null");
});

test("no other file of src defines an agent with id null, or a __noop__ tool", () => {
  const defining = sources(path.join(REPO_ROOT, "src")).filter((file) => {
    const text = fs.readFileSync(file, "utf8");
    return /id:\s*"null"/.test(text) || text.includes("__noop__");
  });
  assert.deepEqual(
    defining.map((f) => path.relative(REPO_ROOT, f)),
    ["src/testing/reference-agents.ts"],
  );
});

async function play(agent: Agent, steps = 20): Promise<string[]> {
  const world = vaultWorld("none");
  const task = world.generateTask({ family: "count", difficulty: 1, seed: 0 });
  const env = world.create();
  let obs: Observation = await env.reset({ task, seed: 0, episodeId: "e" });
  const session = await agent.start({
    episodeId: "e",
    world: world.id,
    instruction: task.instruction,
    tools: env.spec.tools,
    samplingSeed: 0,
  });
  const tools: string[] = [];
  for (let i = 0; i < steps; i++) {
    const action = await session.act(obs);
    tools.push(`${action.tool} ${JSON.stringify(action.args)}`);
    const r = await env.step({ callId: `a${i}`, ...action });
    obs = r.observation;
    if (r.terminated || r.truncated) break;
  }
  return tools;
}

test("the null agent ends the episode on its first step, with the terminal tool, the same way every time", async () => {
  const actions = await play(NULL_AGENT);
  assert.equal(actions.length, 1);
  assert.match(actions[0], /^submit /);
  assert.deepEqual(await play(NULL_AGENT), actions);
});

test("the random and middling agents are deterministic for a seed, and differ across seeds", async () => {
  assert.deepEqual(await play(randomAgent(3, ["submit"])), await play(randomAgent(3, ["submit"])));
  const counter = vaultWorld("none").policies.counter;
  const a = await play(middlingAgent(counter, 1));
  assert.deepEqual(await play(middlingAgent(counter, 1)), a);
  const seeds = await Promise.all([1, 2, 3, 4, 5].map((s) => play(middlingAgent(counter, s))));
  assert.ok(new Set(seeds.map((s) => s.join())).size > 1, "some seed plays otherwise");
});
