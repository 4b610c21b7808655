import type { TaskRequest } from "../../core/contracts.ts";
import { configError } from "../../core/errors.ts";
import type { JsonObject } from "../../core/json.ts";
import type { FamilyInfo } from "../../core/registry.ts";
import type { RateLimit } from "./difficulty-ranges.ts";

/** The family named `name` among a world's families; `unknown_family` (config) when there is none. */
export function findFamily<F extends FamilyInfo>(world: string, families: readonly F[], name: string): F {
  const family = families.find((f) => f.name === name);
  if (!family) {
    throw configError(
      "unknown_family",
      `unknown family "${name}" for ${world} (known: ${families.map((f) => f.name).join(", ")})`,
    );
  }
  return family;
}

/** Refuses (`unknown_param`, config) a task param that is not one of the world's tunable knobs. */
export function checkOverrides(world: string, tunable: readonly string[], params: JsonObject): void {
  for (const key of Object.keys(params)) {
    if (!tunable.includes(key)) {
      throw configError(
        "unknown_param",
        `unknown task param "${key}" for ${world} (tunable: ${tunable.join(", ")})`,
      );
    }
  }
}

/**
 * Checks a task request of a world with difficulties 1..5, in order: the family, the difficulty,
 * the seed, the overrides. Returns the family and the overrides (`{}` when none).
 */
export function readTaskRequest<F extends FamilyInfo>(
  request: TaskRequest,
  world: { id: string; families: readonly F[]; tunable: readonly string[] },
): { family: F; overrides: JsonObject } {
  const family = findFamily(world.id, world.families, request.family);
  const difficulty = request.difficulty;
  if (!Number.isInteger(difficulty) || difficulty < 1 || difficulty > 5) {
    throw configError("bad_difficulty", `difficulty must be an integer 1..5, got ${difficulty}`);
  }
  if (!Number.isSafeInteger(request.seed))
    throw configError("bad_seed", `seed must be an integer, got ${request.seed}`);
  const overrides = request.params ?? {};
  checkOverrides(world.id, world.tunable, overrides);
  return { family, overrides };
}

/** An overridden number knob, or undefined when the override is absent (or not a number). */
export const numberParam = (value: unknown): number | undefined =>
  typeof value === "number" ? value : undefined;

/** An overridden rate limit, or undefined when the override is absent (or not `{limit, window}`). */
export function rateLimitParam(value: unknown): RateLimit | undefined {
  return typeof value === "object" &&
    value !== null &&
    typeof (value as { limit?: unknown }).limit === "number" &&
    typeof (value as { window?: unknown }).window === "number"
    ? (value as RateLimit)
    : undefined;
}
