import type { Split, Task } from "../../core/contracts.ts";
import { hashJson } from "../../core/hash.ts";
import type { JsonObject } from "../../core/json.ts";

/** What a world's generator decided; `assembleTask` adds the id, the split and the generator record. */
export interface TaskParts {
  world: string;
  family: string;
  difficulty: number;
  seed: number;
  split?: Split;
  /** The task params the caller overrode (`{}` when none): a non-empty set marks the id. */
  overrides: JsonObject;
  params: JsonObject;
  /** What stands for `params` in the content hash (e.g. its canonical text written once); default `params`. */
  hashedParams?: unknown;
  instruction: string;
  tags: string[];
  /** The ranges the generator drew from, for the generator record. */
  ranges: JsonObject;
}

/**
 * A generated task: id `world/family/d<difficulty>/s<seed>` (plus `/p<hash>` of the overrides),
 * template `world/family@1`, and the content hash of (world, family, difficulty, seed, params, instruction).
 */
export function assembleTask(p: TaskParts): Task {
  const content = {
    world: p.world,
    family: p.family,
    difficulty: p.difficulty,
    seed: p.seed,
    params: p.hashedParams ?? p.params,
    instruction: p.instruction,
  };
  const overridesPart = Object.keys(p.overrides).length ? `/p${hashJson(p.overrides, 8)}` : "";
  return {
    id: `${p.world}/${p.family}/d${p.difficulty}/s${p.seed}${overridesPart}`,
    world: p.world,
    family: p.family,
    difficulty: p.difficulty,
    tags: p.tags,
    params: p.params,
    split: p.split ?? "regression",
    seed: p.seed,
    instruction: p.instruction,
    generator: {
      template: `${p.world}/${p.family}@1`,
      ranges: p.ranges,
      contentHash: hashJson(content),
    },
  };
}
