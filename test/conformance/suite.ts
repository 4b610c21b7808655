/**
 * The conformance suite every world passes. Call it from a test file:
 *
 *   import { conformanceSuite } from "../conformance/suite.ts";
 *   const registry = defaultGym().registry;
 *   conformanceSuite(registry.world("my-world@1"), { registry });
 *
 * It registers node:test tests (one `describe` named `conformance: <world id>`) that check:
 * - tasks: generation is deterministic from (family, difficulty, seed) and records them;
 * - tools: unique names, descriptions, every `input_schema` valid JSON Schema (2020-12) that zod can load,
 *   the reset observation lists them;
 * - bad input: per tool, `fuzzPerTool` seeded malformed argument objects (ones the schema rejects) each
 *   answer `{ok:false, error:{code:"invalid_argument", message, retryable:false}}`, never throw and never
 *   end the episode; unknown tool names too;
 * - determinism: same (task, seed, actions) → same trajectory hash (the known-good policy through the
 *   runner, twice; its actions replayed; seeded random walks replayed);
 * - save/restore: `Registry.save` at every step of an episode, restore through the registered factory
 *   (after a JSON round trip), continue → identical remaining results and verdict;
 * - reset: resetting an instance mid-episode (pending jobs included) leaves no job of the old episode
 *   and gives the state hash, jobs and observation of a fresh instance;
 * - policies: `world.knownGood` passes every family × difficulty × seed; each policy of
 *   `world.expectedFailures` fails its families (with one of the expected violation codes when listed).
 */

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { z } from "zod";
import { inspectionOf } from "../../src/core/capabilities.ts";
import type { Action, Environment, ToolResult } from "../../src/core/contracts.ts";
import { hashJson } from "../../src/core/hash.ts";
import type { Registry, WorldDefinition } from "../../src/core/registry.ts";
import { Rng } from "../../src/core/rng.ts";
import {
  type Cell,
  cellName,
  jobsView,
  randomWalk,
  replay,
  rngFor,
  runPolicy,
  stepAll,
  stepDigest,
  taskOf,
} from "./episodes.ts";
import { schemaProblems, validates } from "./json-schema.ts";
import { malformedArgs } from "./malformed.ts";

export interface ConformanceOptions {
  /** A registry holding the world and its state factory (save/restore goes through it). */
  registry: Registry;
  /** Seeds per family × difficulty (default [0, 1, 2]). */
  seeds?: number[];
  /** Difficulties to cover (default: every difficulty each family declares). */
  difficulties?: number[];
  /** Malformed argument objects per tool (default 1000). */
  fuzzPerTool?: number;
  /** Step budget of policy runs (default 200). */
  maxSteps?: number;
  /** The world schedules background jobs: fail unless some mid-episode reset had jobs pending (default false). */
  expectBackgroundJobs?: boolean;
}

/** Registers the conformance tests for `world`. */
export function conformanceSuite(world: WorldDefinition, opts: ConformanceOptions): void {
  const seeds = opts.seeds ?? [0, 1, 2];
  const fuzzPerTool = opts.fuzzPerTool ?? 1000;
  const maxSteps = opts.maxSteps ?? 200;
  const difficultiesOf = (family: string) => {
    const declared = world.families.find((f) => f.name === family)?.difficulties ?? [];
    return opts.difficulties ? declared.filter((d) => opts.difficulties!.includes(d)) : declared;
  };
  const cells = (family: string, seedList = seeds): Cell[] =>
    difficultiesOf(family).flatMap((difficulty) => seedList.map((seed) => ({ family, difficulty, seed })));
  const tools = world.create().spec.tools;
  let midEpisodeJobs = 0;

  describe(`conformance: ${world.id}`, () => {
    test("the registry restores this world's saved states", () => {
      assert.equal(opts.registry.world(world.id), world);
      assert.ok(world.families.length > 0, "a world has task families");
      assert.ok(
        world.policies[world.knownGood],
        `knownGood "${world.knownGood}" is one of the world's policies`,
      );
      for (const p of Object.keys(world.expectedFailures))
        assert.ok(world.policies[p], `unknown policy ${p}`);
    });

    test("tasks: generation is deterministic and records (world, family, difficulty, seed)", () => {
      for (const f of world.families) {
        for (const cell of cells(f.name)) {
          const a = taskOf(world, cell);
          assert.deepStrictEqual(taskOf(world, cell), a, `${cellName(cell)}: two generations differ`);
          assert.equal(a.world, world.id);
          assert.equal(a.family, cell.family);
          assert.equal(a.difficulty, cell.difficulty);
          assert.equal(a.seed, cell.seed);
          assert.ok(a.instruction.length > 0, `${cellName(cell)}: empty instruction`);
          assert.ok(a.generator.contentHash.length > 0, `${cellName(cell)}: no content hash`);
          assert.deepStrictEqual(JSON.parse(JSON.stringify(a)), a, `${cellName(cell)}: a task is plain JSON`);
        }
        const ids = new Set(seeds.map((seed) => taskOf(world, { family: f.name, difficulty: 1, seed }).id));
        assert.equal(ids.size, seeds.length, `${f.name}: different seeds give different task ids`);
      }
    });

    test("tools: unique names, descriptions, valid JSON Schema (2020-12) objects", async () => {
      const env = world.create();
      assert.ok(tools.length > 0, "a world has tools");
      assert.equal(new Set(tools.map((t) => t.name)).size, tools.length, "tool names are unique");
      for (const t of tools) {
        assert.match(t.name, /^[A-Za-z0-9_-]{1,64}$/, `tool name ${t.name} is not a portable function name`);
        assert.ok(typeof t.description === "string" && t.description.length > 0, `${t.name}: no description`);
        assert.deepEqual(schemaProblems(t.input_schema), [], `${t.name}: invalid JSON Schema`);
        assert.equal(t.input_schema.type, "object", `${t.name}: a tool takes one JSON object`);
        assert.doesNotThrow(() => z.fromJSONSchema(t.input_schema as never), `${t.name}: zod cannot load it`);
      }
      for (const name of env.spec.terminalTools)
        assert.ok(
          tools.some((t) => t.name === name),
          name,
        );
      const first = world.families[0];
      const task = taskOf(world, { family: first.name, difficulty: first.difficulties[0], seed: 0 });
      const obs = await env.reset({ task, seed: 0 });
      assert.equal(obs.kind, "task");
      if (obs.kind === "task")
        assert.deepStrictEqual(obs.tools, tools, "the reset observation lists the tools");
    });

    for (const tool of tools) {
      test(`bad input: ${fuzzPerTool} malformed argument objects to ${tool.name}`, async () => {
        const first = world.families[0];
        const task = taskOf(world, { family: first.name, difficulty: first.difficulties[0], seed: 0 });
        const env = world.create();
        const obs = await env.reset({ task, seed: 0 });
        const pool =
          obs.kind === "task" ? Object.values(obs.context).filter((v) => typeof v === "string") : [];
        const rng = Rng.seeded(fuzzPerTool, `malformed/${tool.name}`);
        let sent = 0;
        for (let tries = 0; sent < fuzzPerTool; tries++) {
          assert.ok(tries < fuzzPerTool * 20, `could only build ${sent} malformed cases for ${tool.name}`);
          const c = malformedArgs(tool.input_schema, rng, pool as string[]);
          if (validates(tool.input_schema, c.args)) continue; // broke nothing the schema forbids
          sent++;
          const where = `${tool.name} case ${sent} (${c.how.join(", ")})`;
          const result = await stepChecked(
            env,
            { tool: tool.name, args: c.args, callId: `fuzz-${sent}` } as Action,
            where,
          );
          assert.equal(result.ok, false, `${where}: accepted malformed arguments`);
          if (result.ok) continue;
          assert.equal(result.error.code, "invalid_argument", `${where}: ${JSON.stringify(result.error)}`);
          assert.equal(result.error.retryable, false, `${where}: invalid_argument is not retryable`);
          assert.ok(result.error.message.length > 0, `${where}: empty message`);
          if (c.field && c.field.length > 1 && c.field !== "__proto__")
            assert.ok(
              result.error.message.includes(c.field),
              `${where}: message does not name the field: ${result.error.message}`,
            );
        }
        assert.doesNotThrow(() => env.evaluate(), "evaluate() after malformed calls");
      });
    }

    test("bad input: unknown tool names are invalid_argument", async () => {
      const first = world.families[0];
      const env = world.create();
      await env.reset({
        task: taskOf(world, { family: first.name, difficulty: first.difficulties[0], seed: 0 }),
        seed: 0,
      });
      const names = [
        "",
        "no_such_tool",
        "GET_CASE",
        " get_case",
        "__proto__",
        "constructor",
        "x".repeat(10_000),
      ];
      for (const [i, name] of names.entries()) {
        const result = await stepChecked(
          env,
          { tool: name, args: {}, callId: `u${i}` },
          `tool "${name.slice(0, 20)}"`,
        );
        assert.equal(result.ok, false);
        if (!result.ok) assert.equal(result.error.code, "invalid_argument");
      }
    });

    for (const family of world.families) {
      test(`determinism: ${family.name}: same (task, seed, actions) → same trajectory hash`, async () => {
        for (const cell of cells(family.name)) {
          const where = cellName(cell);
          const a = await runPolicy(world, world.knownGood, cell, maxSteps);
          const b = await runPolicy(world, world.knownGood, cell, maxSteps);
          assert.ok(a.trajectoryHash.length > 0, `${where}: no trajectory hash`);
          assert.equal(b.trajectoryHash, a.trajectoryHash, `${where}: two runs of ${world.knownGood} differ`);
          const task = taskOf(world, cell);
          const actions = a.steps.map((s) => s.action);
          const r1 = await replay(world, task, cell.seed, actions);
          const r2 = await replay(world, task, cell.seed, actions);
          assert.equal(r2.hash, r1.hash, `${where}: replaying the same actions differs`);
          assert.deepStrictEqual(
            r1.results.map((r) => r.observation),
            a.steps.map((s) => s.observation),
            `${where}: replayed observations differ from the runner's record`,
          );
          const walk = await randomWalk(world, task, cell.seed, rngFor("walk", cell), 40);
          const w1 = await replay(world, task, cell.seed, walk);
          const w2 = await replay(world, task, cell.seed, walk);
          assert.equal(w2.hash, w1.hash, `${where}: replaying a random walk differs`);
        }
      });
    }

    for (const family of world.families) {
      test(`save/restore: ${family.name}: restore at any step and continue → identical results`, async () => {
        const difficulties = difficultiesOf(family.name);
        for (const difficulty of [difficulties[0], difficulties[difficulties.length - 1]]) {
          const cell = { family: family.name, difficulty, seed: seeds[0] };
          const task = taskOf(world, cell);
          const good = await runPolicy(world, world.knownGood, cell, maxSteps);
          const walk = await randomWalk(world, task, cell.seed, rngFor("save", cell), 30);
          for (const [label, actions] of [
            ["known-good", good.steps.map((s) => s.action)],
            ["random walk", walk],
          ] as const) {
            const full = await replay(world, task, cell.seed, actions);
            const n = full.results.length;
            const stride = Math.max(1, Math.ceil(n / 40));
            for (let cut = 0; cut < n; cut += stride) {
              await checkRestoreAt(
                opts.registry,
                world,
                task,
                cell.seed,
                actions.slice(0, n),
                cut,
                `${cellName(cell)} ${label} cut ${cut}`,
              );
            }
          }
        }
      });
    }

    for (const family of world.families) {
      test(`reset: ${family.name}: mid-episode reset leaves no old job and the fresh state hash`, async () => {
        for (const cell of cells(family.name, seeds.slice(0, 1))) {
          const task = taskOf(world, cell);
          const good = await runPolicy(world, world.knownGood, cell, maxSteps);
          const actions = good.steps.map((s) => s.action);
          // the cut: the first step after which background jobs are pending, else the middle
          const probe = world.create();
          await probe.reset({ task, seed: cell.seed, episodeId: "old" });
          let cut = Math.floor(actions.length / 2);
          for (let k = 0; k < actions.length - 1; k++) {
            await probe.step(structuredClone(actions[k]));
            if (inspectionOf(probe).pendingJobs().length > 0) {
              cut = k + 1;
              break;
            }
          }
          const other = { ...cell, seed: cell.seed + 1 };
          for (const target of [cell, other]) {
            const where = `${cellName(cell)} cut ${cut} → reset to ${cellName(target)}`;
            const used = world.create();
            await used.reset({ task, seed: cell.seed, episodeId: "old" });
            await stepAll(used, actions.slice(0, cut));
            if (inspectionOf(used).pendingJobs().length > 0) midEpisodeJobs++;
            const targetTask = taskOf(world, target);
            const o1 = await used.reset({ task: targetTask, seed: target.seed, episodeId: "new" });
            const fresh = world.create();
            const o2 = await fresh.reset({ task: targetTask, seed: target.seed, episodeId: "new" });
            const stale = inspectionOf(used)
              .pendingJobs()
              .filter((j) => j.owner !== "new");
            assert.deepEqual(stale, [], `${where}: jobs of the old episode survive reset`);
            assert.equal(
              inspectionOf(used).stateHash(),
              inspectionOf(fresh).stateHash(),
              `${where}: state hash differs from a fresh instance`,
            );
            assert.deepStrictEqual(jobsView(used), jobsView(fresh), `${where}: pending jobs differ`);
            assert.deepStrictEqual(o1, o2, `${where}: reset observations differ`);
            assert.equal(inspectionOf(used).leakedJobs(), 0, `${where}: leaked jobs`);
            const next = (await runPolicy(world, world.knownGood, target, maxSteps)).steps.map(
              (s) => s.action,
            );
            const r1 = await stepAll(used, next);
            const r2 = await stepAll(fresh, next);
            assert.deepStrictEqual(
              r1.map(stepDigest),
              r2.map(stepDigest),
              `${where}: the next episode differs`,
            );
            assert.deepStrictEqual(used.evaluate(), fresh.evaluate(), `${where}: verdicts differ`);
            assert.equal(
              inspectionOf(used).leakedJobs(),
              0,
              `${where}: a job of the old episode fired in the new one`,
            );
          }
        }
      });
    }

    if (opts.expectBackgroundJobs) {
      test("reset: the mid-episode resets above had background jobs pending", () => {
        assert.ok(midEpisodeJobs > 0, "no mid-episode state with pending jobs was found to reset");
      });
    }

    for (const family of world.families) {
      test(`policies: known-good ${world.knownGood} passes ${family.name}`, async () => {
        for (const cell of cells(family.name)) {
          const r = await runPolicy(world, world.knownGood, cell, maxSteps);
          assert.equal(r.outcome, "passed", `${cellName(cell)}: ${r.outcome} (${r.reason})`);
        }
      });
    }

    for (const [policy, want] of Object.entries(world.expectedFailures)) {
      test(`policies: ${policy} fails ${want.families.join(", ")}${want.codes.length ? ` with ${want.codes.join(" or ")}` : ""}`, async () => {
        for (const family of want.families) {
          for (const cell of cells(family)) {
            const r = await runPolicy(world, policy, cell, maxSteps);
            const codes = r.verdict?.violations.map((v) => v.code) ?? [];
            const where = `${cellName(cell)}: ${r.outcome} (${r.reason})`;
            assert.ok(r.outcome === "failed" || r.outcome === "violated", `${policy} should fail ${where}`);
            if (want.codes.length)
              assert.ok(
                codes.some((c) => want.codes.includes(c)),
                `${policy}: ${where}`,
              );
          }
        }
      });
    }
  });
}

/** One step that must not throw and must answer a well-formed tool_result observation. */
async function stepChecked(env: Environment, action: Action, where: string): Promise<ToolResult> {
  let r: Awaited<ReturnType<Environment["step"]>>;
  try {
    r = await env.step(action);
  } catch (err) {
    assert.fail(`${where}: step threw ${String(err)}`);
  }
  assert.equal(r.terminated, false, `${where}: a failed call ended the episode`);
  assert.equal(r.truncated, false, `${where}: a failed call truncated the episode`);
  const obs = r.observation;
  assert.equal(obs.kind, "tool_result", `${where}: not a tool_result observation`);
  if (obs.kind !== "tool_result") throw new Error("unreachable");
  assert.equal(obs.callId, action.callId, `${where}: callId not echoed`);
  assert.deepStrictEqual(JSON.parse(JSON.stringify(obs)), obs, `${where}: the observation is not plain JSON`);
  const result = obs.result;
  assert.equal(typeof result.ok, "boolean", `${where}: result has no ok flag`);
  if (!result.ok) {
    assert.equal(typeof result.error?.code, "string", `${where}: error without a code`);
    assert.equal(typeof result.error.message, "string", `${where}: error without a message`);
    assert.equal(typeof result.error.retryable, "boolean", `${where}: error without retryable`);
  }
  return result;
}

/** Saves at `cut`, restores through the registry (after a JSON round trip), continues both; they must agree. */
async function checkRestoreAt(
  registry: Registry,
  world: WorldDefinition,
  task: ReturnType<typeof taskOf>,
  seed: number,
  actions: readonly Action[],
  cut: number,
  where: string,
): Promise<void> {
  const original = world.create();
  await original.reset({ task, seed, episodeId: "save" });
  await stepAll(original, actions.slice(0, cut));
  const saved = registry.save(original);
  const frozen = hashJson(saved);
  const wire = JSON.parse(JSON.stringify(saved));
  assert.deepStrictEqual(wire, saved, `${where}: the saved state is not plain JSON data`);
  const restored = registry.restore(wire);
  assert.equal(restored.spec.id, original.spec.id, `${where}: restored another world`);
  assert.equal(
    inspectionOf(restored).stateHash(),
    inspectionOf(original).stateHash(),
    `${where}: state hash differs after restore`,
  );
  assert.deepStrictEqual(
    jobsView(restored),
    jobsView(original),
    `${where}: pending jobs differ after restore`,
  );
  assert.deepStrictEqual(restored.observe(), original.observe(), `${where}: observe() differs after restore`);
  const rest = actions.slice(cut);
  const a = await stepAll(original, rest);
  const b = await stepAll(restored, rest);
  assert.deepStrictEqual(b.map(stepDigest), a.map(stepDigest), `${where}: remaining results differ`);
  assert.deepStrictEqual(restored.evaluate(), original.evaluate(), `${where}: verdicts differ`);
  assert.equal(
    inspectionOf(restored).stateHash(),
    inspectionOf(original).stateHash(),
    `${where}: final state hash differs`,
  );
  assert.equal(
    hashJson(saved),
    frozen,
    `${where}: continuing the episode changed the saved state (aliasing)`,
  );
}
