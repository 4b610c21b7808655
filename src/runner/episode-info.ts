import { randomBytes } from "node:crypto";
import type { Environment, EpisodeInfo, Observation, Task, TrialSpec } from "../core/contracts.ts";
import { hashJson } from "../core/hash.ts";
import { cloneJson } from "../core/json.ts";

/**
 * The secret of this process's runs. Episode ids and sampling seeds are hashes of the trial id and
 * this secret, so no agent can get from them back to the trial (whose id is a hash of the experiment,
 * family, difficulty and seed, and keys the store), not even for an experiment whose name it guesses.
 */
const RUN_SECRET = randomBytes(16).toString("hex");

/** The opaque id an agent knows its episode by. */
export function episodeIdOf(spec: TrialSpec): string {
  return `ep-${hashJson({ secret: RUN_SECRET, trial: spec.id, purpose: "episode" }, 16)}`;
}

/** The seed an agent may use for its own randomness (an unsigned 32-bit integer). */
export function samplingSeedOf(spec: TrialSpec): number {
  return Number.parseInt(hashJson({ secret: RUN_SECRET, trial: spec.id, purpose: "sampling" }, 8), 16) >>> 0;
}

/**
 * What the agent is told at the start: what a deployed agent would see (instruction, tools, world),
 * an opaque episode id and a sampling seed; never the task id, family, difficulty, seed or trial id.
 * The tools are a copy: an agent that edits them changes only its own. (Copies are `cloneJson`:
 * the structuredClone result for plain data, by a direct walk several times faster.)
 */
export function episodeInfo(spec: TrialSpec, task: Task, env: Environment): EpisodeInfo {
  return {
    episodeId: episodeIdOf(spec),
    world: spec.world,
    instruction: task.instruction,
    tools: cloneJson(env.spec.tools),
    samplingSeed: samplingSeedOf(spec),
  };
}

/** The agent's copy of an observation: what it does to it changes neither the world nor the record. */
export function agentCopy(observation: Observation): Observation {
  return cloneJson(observation);
}
