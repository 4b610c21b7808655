/**
 * What a client of `proving serve` is told (issue 17: hidden information stays hidden over the wire).
 *
 * A **client** is told what a deployed agent would see — the observations, the tools, the episode's
 * bookkeeping (`episode_id`, `step_count`, `now`, `terminated`, `truncated`, the `verdict` once the
 * episode has ended) — plus the task as far as its own reset request decided it. A reset that sent a
 * seed decided the whole task (what it did not send derives from that seed, `task-choice.ts`): it is
 * told the task's public id `task_id` (`world/family/dN/sSEED`), `family`, `difficulty`, `seed` and
 * `state_hash`. A reset without a seed is told only the `family` and `difficulty` it sent. What the
 * server drew is not revealed: with family, difficulty and seed, `proving tasks --params` prints the
 * hidden start state and fault plan. Harness `layers`, `setup` and any other step info, and
 * a variant's layers and params in `/metadata`, are never sent.
 *
 * An **operator** (a request or WebSocket carrying the server's operator token) is told everything the
 * server knows: the runner that records a remote experiment uses it so records and reports keep the
 * layers.
 */
import type { JsonObject, JsonValue } from "../core/json.ts";
import type { EpisodeStateDoc } from "./protocol.ts";

/** Who asks. */
export interface Viewer {
  /** Holds the operator token: told everything, hidden task parameters and fault layers included. */
  readonly operator: boolean;
}

export const CLIENT_VIEW: Viewer = Object.freeze({ operator: false });
export const OPERATOR_VIEW: Viewer = Object.freeze({ operator: true });

/** What a reset's request decided (a seed of -1 or none is not a choice; a seed decides all three). */
export interface ChosenTask {
  family?: string;
  difficulty?: number;
  seed?: number;
}

/** Step metadata a client is told: the episode's bookkeeping, never the harness's step info. */
export interface StepBookkeeping {
  episode_id: string;
  step_count: number;
  /** Virtual seconds. */
  now: number;
  terminated: boolean;
  truncated: boolean;
  /** `"max_steps"` when the server's step cap ended the episode. */
  truncated_by?: string;
  /** On the step that ends the episode. */
  verdict?: JsonValue;
  request_id?: string;
}

/** Keys of a reset's metadata and of `/state` that name the task. */
const TASK_KEYS = ["task_id", "family", "difficulty", "seed", "state_hash"] as const;

const fullyChosen = (c: ChosenTask) =>
  c.family !== undefined && c.difficulty !== undefined && c.seed !== undefined;

/** Whether `viewer` may be told the task key `key` of an episode started with `chosen`. */
function mayKnow(key: (typeof TASK_KEYS)[number], chosen: ChosenTask, viewer: Viewer): boolean {
  if (viewer.operator) return true;
  switch (key) {
    case "family":
      return chosen.family !== undefined;
    case "difficulty":
      return chosen.difficulty !== undefined;
    case "seed":
      return chosen.seed !== undefined;
    default:
      return fullyChosen(chosen);
  }
}

/**
 * A step's metadata as `viewer` is told it: a client, the bookkeeping alone; the operator, the
 * environment's step info (harness `layers`, `setup`, ...) with the bookkeeping over it.
 */
export function stepMetadataFor(info: JsonObject, bookkeeping: StepBookkeeping, viewer: Viewer): JsonObject {
  const own = bookkeeping as unknown as JsonObject;
  return viewer.operator ? { ...info, ...own } : own;
}

/** A reset's metadata as `viewer` is told it: task keys the client did not choose are left out. */
export function resetMetadataFor(meta: JsonObject, chosen: ChosenTask, viewer: Viewer): JsonObject {
  if (viewer.operator) return meta;
  const out: JsonObject = { ...meta };
  for (const key of TASK_KEYS) if (!mayKnow(key, chosen, viewer)) delete out[key];
  return out;
}

/** `/state` as `viewer` is told it: task keys the client did not choose are `null`. */
export function stateFor(doc: EpisodeStateDoc, chosen: ChosenTask, viewer: Viewer): EpisodeStateDoc {
  if (viewer.operator) return doc;
  const out: EpisodeStateDoc = { ...doc };
  for (const key of TASK_KEYS) if (key in out && !mayKnow(key, chosen, viewer)) out[key] = null;
  return out;
}

/** `/metadata` as `viewer` is told it: a variant's spec (its layers and their params) only to the operator. */
export function serverMetadataFor(doc: JsonObject, viewer: Viewer): JsonObject {
  if (viewer.operator || doc.variant === undefined) return doc;
  const { variant: _hidden, ...rest } = doc;
  return rest;
}
