/**
 * Admissible actions of every built-in world: deterministic (same state, same list; a restored
 * world gives the same list), bounded (≤ 64), every call valid against its tool's JSON Schema (ajv),
 * free of hidden params (no text of the task's params appears in the list before an observation
 * showed it), and every action of the world's known-good policy is in the list once canonicalised
 * (a key the policy generated → the list's fresh key `key-<n>`; free text → the list's text).
 * Episodes: the known-good policy over every family and difficulty (seeds 1–2), and a seeded walk
 * that picks from the list itself (seeds 1–2 per family).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Ajv, type ValidateFunction } from "ajv";
import { z } from "zod";
import {
  type AdmissibleAction,
  type Environment,
  MAX_ADMISSIBLE_ACTIONS,
  type Observation,
  type Task,
} from "../../src/core/contracts.ts";
import { canonicalJson } from "../../src/core/hash.ts";
import type { JsonObject, JsonValue } from "../../src/core/json.ts";
import type { WorldDefinition } from "../../src/core/registry.ts";
import { Rng } from "../../src/core/rng.ts";
import { defineTool } from "../../src/core/tool.ts";
import { BUILTIN_WORLDS } from "../../src/gym/index.ts";
import { defineToolWorld, type SimpleWorldContext } from "../../src/worlds/shared/define-tool-world.ts";
import { FRESH_KEY_PREFIX } from "../../src/worlds/shared/index.ts";

const ajv = new Ajv({ strict: false, allErrors: true });

function validators(env: Environment): Map<string, ValidateFunction> {
  return new Map(env.spec.tools.map((t) => [t.name, ajv.compile(t.input_schema)]));
}

/** Every string of the task's params of 4 characters or more (ids, names, models, lines, sources). */
function hiddenStrings(task: Task, world: WorldDefinition): string[] {
  const out = new Set<string>();
  const walk = (v: JsonValue, key: string | undefined) => {
    // code-repair: a correct patch of a source the agent read is the reference fix, by construction
    if (world.id === "code-repair@1" && key === "reference_fix") return;
    if (typeof v === "string") {
      if (v.length >= 4) out.add(v);
    } else if (Array.isArray(v)) for (const x of v) walk(x, key);
    else if (v && typeof v === "object") for (const [k, x] of Object.entries(v)) walk(x, k);
  };
  walk(task.params, undefined);
  return [...out];
}

function strings(v: JsonValue, out: string[] = []): string[] {
  if (typeof v === "string") out.push(v);
  else if (Array.isArray(v)) for (const x of v) strings(x, out);
  else if (v && typeof v === "object") for (const x of Object.values(v)) strings(x, out);
  return out;
}

interface Checked {
  steps: number;
  longest: number;
}

/** Checks the list of `env` now, given what the agent has seen (`shown`: the observations' JSON so far). */
function checkList(
  env: Environment,
  world: WorldDefinition,
  task: Task,
  shown: string,
  validate: Map<string, ValidateFunction>,
  where: string,
): AdmissibleAction[] {
  const list = env.capabilities.admissible!.admissibleActions();
  assert.ok(list.length <= MAX_ADMISSIBLE_ACTIONS, `${where}: ${list.length} actions`);
  assert.equal(canonicalJson(env.capabilities.admissible!.admissibleActions()), canonicalJson(list), where);
  const restored = world.restore(env.saveState());
  assert.equal(
    canonicalJson(restored.capabilities.admissible!.admissibleActions()),
    canonicalJson(list),
    `${where}: a restored world gives the same list`,
  );
  for (const a of list) {
    const v = validate.get(a.tool);
    assert.ok(v, `${where}: ${a.tool} is not a tool of the world`);
    assert.ok(v(a.args), `${where}: ${a.tool} ${JSON.stringify(a.args)}: ${ajv.errorsText(v.errors)}`);
  }
  const leak = hiddenLeak(list, task, world, shown);
  assert.equal(leak, undefined, `${where}: hidden "${leak}" offered before any observation showed it`);
  return list;
}

/** A string of the task's params that the list offers (inside any argument) though no observation showed it. */
function hiddenLeak(
  list: AdmissibleAction[],
  task: Task,
  world: WorldDefinition,
  shown: string,
): string | undefined {
  const offered = list.flatMap((a) => strings(a.args));
  return hiddenStrings(task, world).find((h) => !shown.includes(h) && offered.some((s) => s.includes(h)));
}

/** One episode, `choose` picking each action; checks the list before every action. */
async function episode(
  world: WorldDefinition,
  task: Task,
  seed: number,
  choose: (
    obs: Observation,
    list: AdmissibleAction[],
  ) => Promise<{ tool: string; args: Record<string, JsonValue> } | undefined>,
  onAction: (
    list: AdmissibleAction[],
    action: { tool: string; args: Record<string, JsonValue> },
    env: Environment,
    where: string,
  ) => void,
): Promise<Checked> {
  const env = world.create();
  let obs = await env.reset({ task, seed });
  const validate = validators(env);
  let shown = JSON.stringify(obs);
  let longest = 0;
  let steps = 0;
  for (; steps < 150; steps++) {
    const where = `${task.id}#${seed} step ${steps}`;
    // support-orders switches tools with its stage
    const list = checkList(
      env,
      world,
      task,
      shown,
      env.spec.tools.length === validate.size ? validate : validators(env),
      where,
    );
    longest = Math.max(longest, list.length);
    const action = await choose(obs, list);
    if (!action) break;
    onAction(list, action, env, where);
    const r = await env.step({ tool: action.tool, args: action.args, callId: String(steps) });
    obs = r.observation;
    shown += JSON.stringify(obs) + JSON.stringify(action.args);
    if (r.terminated || r.truncated) {
      assert.deepEqual(env.capabilities.admissible!.admissibleActions(), [], `${where}: none after the end`);
      break;
    }
  }
  return { steps, longest };
}

for (const world of BUILTIN_WORLDS) {
  describe(`admissible actions of ${world.id}`, () => {
    it("declares the capability", () => {
      assert.ok(world.create().capabilities.admissible);
    });

    it("holds every action of the known-good policy (canonicalised), bounded, valid, deterministic, no hidden params", async () => {
      let longest = 0;
      let actions = 0;
      for (const family of world.families) {
        for (const difficulty of family.difficulties) {
          for (const seed of [1, 2]) {
            const task = world.generateTask({ family: family.name, difficulty, seed });
            const first = await world.create().reset({ task, seed });
            const session = await world.policies[world.knownGood].start({
              episodeId: "e",
              world: world.id,
              instruction: first.kind === "task" ? first.instruction : "",
              tools: world.create().spec.tools,
              samplingSeed: seed,
            });
            const done = await episode(
              world,
              task,
              seed,
              async (obs) => {
                try {
                  return await session.act(obs);
                } catch {
                  return undefined; // the script has nothing more to do
                }
              },
              (list, action, env, where) => {
                actions++;
                const adm = env.capabilities.admissible!;
                const c = adm.canonicalAction ? adm.canonicalAction(action) : action;
                const text = canonicalJson(c);
                assert.ok(
                  list.some((a) => canonicalJson(a) === text),
                  `${where}: the known-good ${action.tool} ${JSON.stringify(action.args)} (as ${text}) is not admissible`,
                );
              },
            );
            longest = Math.max(longest, done.longest);
          }
        }
      }
      assert.ok(actions > 0);
      assert.ok(longest > 0 && longest <= MAX_ADMISSIBLE_ACTIONS);
    });

    it("a walk that picks from the list keeps it bounded, valid, deterministic and free of hidden params", async () => {
      for (const family of world.families) {
        for (const seed of [1, 2]) {
          const difficulty = family.difficulties[seed % family.difficulties.length];
          const task = world.generateTask({ family: family.name, difficulty, seed });
          const rng = Rng.seeded(seed, `walk/${family.name}`);
          await episode(
            world,
            task,
            seed,
            async (_obs, list) => (list.length > 0 ? rng.pick(list) : undefined),
            () => undefined,
          );
        }
      }
    });
  });
}

describe("the hidden-params check", () => {
  it("catches a list that offers the device model before get_case showed it", async () => {
    const world = BUILTIN_WORLDS.find((w) => w.id === "device-support@1")!;
    const task = world.generateTask({ family: "approved-replacement", difficulty: 1, seed: 5 });
    const env = world.create();
    const first = await env.reset({ task, seed: 5 });
    const shown = JSON.stringify(first);
    const list = env.capabilities.admissible!.admissibleActions();
    assert.equal(hiddenLeak(list, task, world, shown), undefined);
    const model = String((task.params.devices as { model: string }[])[0].model);
    const leaky = [...list, { tool: "send_message", args: { case_id: "C-1", text: `ship a ${model}` } }];
    assert.equal(hiddenLeak(leaky, task, world, shown), model);
  });
});

describe("canonicalisation", () => {
  it("a key the agent generated becomes the fresh key; a reused key stays; free text becomes the list's text", async () => {
    const world = BUILTIN_WORLDS.find((w) => w.id === "device-support@1")!;
    const task = world.generateTask({ family: "lost-reply", difficulty: 1, seed: 3 });
    const env = world.create();
    const first = await env.reset({ task, seed: 3 });
    const caseId = first.kind === "task" ? String(first.context.case_id) : "";
    const adm = env.capabilities.admissible!;
    const esc = adm.canonicalAction!({
      tool: "escalate",
      args: { case_id: caseId, reason: "anything at all", operation_ids: [] },
    });
    assert.ok(adm.admissibleActions().some((a) => canonicalJson(a) === canonicalJson(esc)));
    const got = await env.step({ tool: "get_case", args: { case_id: caseId }, callId: "1" });
    assert.ok(got.observation.kind === "tool_result" && got.observation.result.ok);
    const create = (key: string) => ({
      tool: "create_replacement",
      args: {
        ...(adm.admissibleActions().find((a) => a.tool === "create_replacement")?.args ?? {}),
        idempotency_key: key,
      },
    });
    const fresh = adm.canonicalAction!(create("my-own-key"));
    assert.equal(fresh.args.idempotency_key, `${FRESH_KEY_PREFIX}1`);
    await env.step({ ...create("my-own-key"), callId: "2" });
    assert.equal(adm.canonicalAction!(create("my-own-key")).args.idempotency_key, "my-own-key");
    assert.equal(adm.canonicalAction!(create("another")).args.idempotency_key, `${FRESH_KEY_PREFIX}1`);
  });
});

describe("defineToolWorld({admissible})", () => {
  it("declares admissible actions from the tools' schemas and the ids seen; without it, none", async () => {
    const look = defineTool({
      name: "look",
      description: "list the boxes",
      input: z.object({}).strict(),
      run: (_a, ctx: SimpleWorldContext<{ boxes: string[]; opened: string[] }>) => ({
        ok: true,
        boxes: ctx.state.entities.boxes.map((box_id) => ({ box_id })),
      }),
    });
    const open = defineTool({
      name: "open",
      description: "open a box",
      input: z.object({ box_id: z.string().min(1), mode: z.enum(["gently", "fast"]) }).strict(),
      run: (a, ctx: SimpleWorldContext<{ boxes: string[]; opened: string[] }>) => {
        ctx.state.entities.opened.push(a.box_id);
        return { ok: true };
      },
    });
    const options = {
      id: "boxes@1",
      description: "open the right box",
      tools: [look, open],
      terminal: ["open"],
      families: [{ name: "one", description: "one box", difficulties: [1] }],
      task: () => ({ params: { boxes: ["B-1", "B-2"] }, instruction: "open a box" }),
      start: (p: JsonObject) => ({ boxes: p.boxes as string[], opened: [] as string[] }),
      verify: (e: { opened: string[] }) => ({
        checks: [{ name: "opened", passed: e.opened.length === 1, detail: "" }],
      }),
    };
    const plain = defineToolWorld(options);
    assert.equal(plain.create().capabilities.admissible, undefined);
    const world = defineToolWorld({ ...options, admissible: {} });
    const env = world.create();
    await env.reset({ task: world.generateTask({ family: "one", difficulty: 1, seed: 1 }), seed: 1 });
    assert.deepEqual(env.capabilities.admissible!.admissibleActions(), [{ tool: "look", args: {} }]);
    await env.step({ tool: "look", args: {}, callId: "1" });
    assert.deepEqual(env.capabilities.admissible!.admissibleActions(), [
      { tool: "look", args: {} },
      { tool: "open", args: { box_id: "B-1", mode: "gently" } },
      { tool: "open", args: { box_id: "B-1", mode: "fast" } },
      { tool: "open", args: { box_id: "B-2", mode: "gently" } },
      { tool: "open", args: { box_id: "B-2", mode: "fast" } },
    ]);
  });
});
