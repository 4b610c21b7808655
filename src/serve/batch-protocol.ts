/**
 * The wire shapes of several sessions per client (opt-in additions to the protocol): a group reset
 * (`"group": N` on a reset), batched steps (`step_batch`), forks (`fork`) and group results
 * (`group`). Validation only; `multi-session.ts` runs them.
 */
import type { JsonObject } from "../core/json.ts";
import { quoteInput } from "../core/quote-input.ts";
import { parseAction, parseEpisodeId, ServeError, type WireAction } from "./protocol.ts";

/** The most steps one `step_batch` carries. */
export const MAX_BATCH_STEPS = 256;
/** The most sessions one group reset or one fork opens. */
export const MAX_GROUP_SIZE = 64;

/** One entry of a batch: a step to run, or the entry's own refusal (never the whole batch's). */
export type BatchEntry =
  | { episodeId: string; action: WireAction; admissible: boolean }
  | { episodeId: string; error: ServeError };

/** What `parseEpisodeId` accepts: 1 to 255 printable ASCII characters, no spaces. */
const EPISODE_ID = /^[\x21-\x7e]{1,255}$/;
const isEpisodeId = (v: unknown): v is string => typeof v === "string" && EPISODE_ID.test(v);

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

function count(value: unknown, where: string): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1 || value > MAX_GROUP_SIZE) {
    throw new ServeError("VALIDATION_ERROR", `${where}: expected an integer from 1 to ${MAX_GROUP_SIZE}`, {
      errors: [{ type: "out_of_range", loc: where.split("."), msg: `1..${MAX_GROUP_SIZE}` }],
    });
  }
  return value;
}

/** A reset's `group` (how many sessions to open on its task), if it asked for one. */
export function parseGroupSize(body: unknown): number | undefined {
  if (!isPlainObject(body) || body.group === undefined || body.group === null) return undefined;
  return count(body.group, "reset.group");
}

/** `{steps: [{episode_id, action, admissible?}, ...]}` (at most 256): each entry parsed on its own. */
export function parseStepBatch(value: unknown): BatchEntry[] {
  if (!isPlainObject(value) || !Array.isArray(value.steps)) {
    throw new ServeError("VALIDATION_ERROR", "step_batch.steps: expected a list of {episode_id, action}");
  }
  const steps = value.steps;
  if (steps.length > MAX_BATCH_STEPS) {
    throw new ServeError(
      "VALIDATION_ERROR",
      `step_batch.steps: ${steps.length} steps, at most ${MAX_BATCH_STEPS} per batch`,
      { extra: { max_batch_steps: MAX_BATCH_STEPS } },
    );
  }
  return steps.map((entry, i): BatchEntry => {
    const where = `step_batch.steps.${i}`;
    const rawId = isPlainObject(entry) ? entry.episode_id : undefined;
    const episodeId = typeof rawId === "string" ? quoteInput(rawId, 255) : "";
    try {
      if (!isPlainObject(entry)) throw new ServeError("VALIDATION_ERROR", `${where}: expected an object`);
      // the schema's rule, checked by hand on the hot path (the schema words a refusal)
      const id = isEpisodeId(rawId) ? rawId : parseEpisodeId(rawId, `${where}.episode_id`);
      if (entry.admissible !== undefined && typeof entry.admissible !== "boolean") {
        throw new ServeError("VALIDATION_ERROR", `${where}.admissible: expected a boolean`);
      }
      if (entry.action === undefined) throw new ServeError("VALIDATION_ERROR", `${where}.action: required`);
      return {
        episodeId: id,
        action: parseAction(entry.action, `${where}.action`),
        admissible: entry.admissible === true,
      };
    } catch (err) {
      const error =
        err instanceof ServeError ? err : new ServeError("VALIDATION_ERROR", `${where}: not a step`);
      return { episodeId, error };
    }
  });
}

/** `{episode_id, n}`: fork a session's episode into n new sessions. */
export function parseFork(value: unknown): { episodeId: string; n: number } {
  if (!isPlainObject(value)) throw new ServeError("VALIDATION_ERROR", "fork: expected {episode_id, n}");
  return { episodeId: parseEpisodeId(value.episode_id, "fork.episode_id"), n: count(value.n, "fork.n") };
}

/** `{group_id}` of a group query. */
export function parseGroupId(value: unknown): string {
  const id = isPlainObject(value) ? value.group_id : value;
  return parseEpisodeId(id, "group.group_id");
}

/** An entry's answer: the step's envelope under its episode id, or its error. */
export function batchError(episodeId: string, err: ServeError): JsonObject {
  return { episode_id: episodeId, error: { code: err.code, message: err.message } };
}
