import { configError } from "../core/errors.ts";

/**
 * A point of the task space: a world (or a harness variant of one), a task family, a difficulty.
 * Samplers choose keys; the seed of the task drawn for a key is the curriculum's business, not the key's.
 */
export interface TaskKey {
  /** Base world id, `name@version`. */
  world: string;
  /** Variant id (`gym.harness.variantId(...)`) when the key is a harnessed variant of `world`. */
  variant?: string;
  family: string;
  difficulty: number;
}

/** The key's stable text form: `world/family/dN`, or `variant/family/dN` for a variant. */
export function taskKeyId(key: TaskKey): string {
  return `${key.variant ?? key.world}/${key.family}/d${key.difficulty}`;
}

/** Reads a key from a plain object (a stored row or a file), failing with `bad_task_key`. */
export function readTaskKey(value: unknown, where = "task key"): TaskKey {
  const v = value as Record<string, unknown> | null;
  if (
    typeof v !== "object" ||
    v === null ||
    typeof v.world !== "string" ||
    typeof v.family !== "string" ||
    typeof v.difficulty !== "number" ||
    (v.variant !== undefined && typeof v.variant !== "string")
  ) {
    throw configError("bad_task_key", `${where}: want {world, family, difficulty, variant?}`);
  }
  return {
    world: v.world,
    ...(v.variant !== undefined ? { variant: v.variant as string } : {}),
    family: v.family,
    difficulty: v.difficulty,
  };
}
