/**
 * Episode drivers for the conformance suite: trial specs for a world's scripted policies, replaying a
 * fixed action list against an environment, and seeded random walks whose arguments come from each
 * tool's JSON Schema (strings drawn from ids the episode has shown, so calls reach real entities).
 */
import { inspectionOf } from "../../src/core/capabilities.ts";
import type {
  Action,
  Environment,
  Observation,
  StepResult,
  Task,
  TrialRecord,
  TrialSpec,
  Verdict,
} from "../../src/core/contracts.ts";
import { hashJson } from "../../src/core/hash.ts";
import type { JsonValue } from "../../src/core/json.ts";
import type { WorldDefinition } from "../../src/core/registry.ts";
import { Rng } from "../../src/core/rng.ts";
import { DEFAULT_BUDGET } from "../../src/runner/experiment.ts";
import { runTrial } from "../../src/runner/trial.ts";
import { sampleValue } from "./json-schema.ts";
import { malformedArgs } from "./malformed.ts";

export interface Cell {
  family: string;
  difficulty: number;
  seed: number;
}

export const cellName = (c: Cell) => `${c.family} d${c.difficulty} seed ${c.seed}`;

/** A planned trial of one of the world's scripted policies (no experiment needed). */
export function policySpec(world: WorldDefinition, policy: string, cell: Cell, maxSteps: number): TrialSpec {
  return {
    schemaVersion: 1,
    id: `conformance-${hashJson({ world: world.id, policy, ...cell })}`,
    experimentId: "conformance",
    index: 0,
    world: world.id,
    family: cell.family,
    difficulty: cell.difficulty,
    seed: cell.seed,
    repeat: 0,
    agent: { id: policy, kind: "scripted", spec: policy },
    budget: { ...DEFAULT_BUDGET, maxSteps },
  };
}

/** Runs a scripted policy of the world through the real runner. */
export function runPolicy(
  world: WorldDefinition,
  policy: string,
  cell: Cell,
  maxSteps: number,
): Promise<TrialRecord> {
  const agent = world.policies[policy];
  if (!agent) throw new Error(`${world.id} has no policy "${policy}"`);
  return runTrial(policySpec(world, policy, cell, maxSteps), { world, agent });
}

export const taskOf = (world: WorldDefinition, cell: Cell): Task =>
  world.generateTask({ family: cell.family, difficulty: cell.difficulty, seed: cell.seed });

/** What a step must reproduce: the observation, reward, end flags and info (verdict included). */
export function stepDigest(r: StepResult): string {
  return hashJson({
    observation: r.observation,
    reward: r.reward,
    terminated: r.terminated,
    truncated: r.truncated,
    info: r.info,
  });
}

export interface Replay {
  env: Environment;
  initial: Observation;
  results: StepResult[];
  verdict: Verdict;
  /** Hash of the initial observation, every step result and the verdict. */
  hash: string;
}

/** Steps `actions` in order (stopping when the episode ends) on an env already reset. */
export async function stepAll(env: Environment, actions: readonly Action[]): Promise<StepResult[]> {
  const results: StepResult[] = [];
  for (const action of actions) {
    const r = await env.step(structuredClone(action));
    results.push(r);
    if (r.terminated || r.truncated) break;
  }
  return results;
}

/** Resets a fresh instance with (task, seed) and replays `actions` against it. */
export async function replay(
  world: WorldDefinition,
  task: Task,
  seed: number,
  actions: readonly Action[],
  episodeId = "conformance-episode",
): Promise<Replay> {
  const env = world.create();
  const initial = await env.reset({ task, seed, episodeId });
  const results = await stepAll(env, actions);
  const verdict = env.evaluate();
  const hash = hashJson({ initial, steps: results.map(stepDigest), verdict });
  return { env, initial, results, verdict, hash };
}

/** Every string leaf of a JSON value (ids, models, addresses...), short ones only. */
function collectStrings(value: unknown, into: Set<string>): void {
  if (typeof value === "string") {
    if (value.length > 0 && value.length <= 64) into.add(value);
  } else if (Array.isArray(value)) {
    for (const v of value) collectStrings(v, into);
  } else if (value !== null && typeof value === "object") {
    for (const v of Object.values(value)) collectStrings(v, into);
  }
}

/**
 * A seeded random walk of up to `steps` actions on a fresh episode: mostly schema-valid calls of
 * random tools (terminal tools rarely), some malformed ones. Returns the actions taken.
 */
export async function randomWalk(
  world: WorldDefinition,
  task: Task,
  seed: number,
  rng: Rng,
  steps: number,
): Promise<Action[]> {
  const env = world.create();
  const first = await env.reset({ task, seed, episodeId: "walk" });
  const pool = new Set<string>();
  if (first.kind === "task") collectStrings(first.context, pool);
  const tools = env.spec.tools;
  const terminal = new Set(env.spec.terminalTools);
  const actions: Action[] = [];
  for (let i = 0; i < steps; i++) {
    let tool = rng.pick(tools);
    if (terminal.has(tool.name) && i < steps - 1 && rng.bool(0.9)) tool = rng.pick(tools);
    const strings = [...pool];
    const args = rng.bool(0.1)
      ? malformedArgs(tool.input_schema, rng, strings).args
      : sampleValue(tool.input_schema, rng, strings);
    const action = { tool: tool.name, args, callId: `w${i}` } as Action;
    actions.push(action);
    const r = await env.step(structuredClone(action));
    collectStrings(r.observation.kind === "tool_result" ? r.observation.result : null, pool);
    if (r.terminated || r.truncated) break;
  }
  return actions;
}

/** A seeded Rng for a named purpose and cell (independent streams, stable across runs). */
export function rngFor(purpose: string, cell: Cell): Rng {
  return Rng.seeded(cell.seed * 7919 + cell.difficulty, `${purpose}/${cell.family}`);
}

/** Jobs compared by what they do, not by their ids. */
export function jobsView(env: Environment): JsonValue {
  return inspectionOf(env)
    .pendingJobs()
    .map((j) => ({ due: j.due, kind: j.kind, data: j.data, owner: j.owner }));
}
