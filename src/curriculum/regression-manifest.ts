import { hashJson } from "../core/hash.ts";
import type { JsonValue } from "../core/json.ts";
import type { GymWorlds } from "./curriculum-gym.ts";
import type { SplitFile, SplitTask } from "./split-file.ts";
import type { TaskKey } from "./task-key.ts";

/** One frozen task, as generated: its key, seed, and the generator's record of it. */
export interface ManifestTask {
  key: TaskKey;
  variant?: JsonValue;
  seed: number;
  /** Generator template, `world/family@version`. */
  template: string;
  contentHash: string;
}

/** A frozen task list with the hash that identifies it (version, keys, seeds, templates, content hashes). */
export interface TaskManifest {
  split: "regression" | "heldout";
  version: number;
  tasks: ManifestTask[];
  hash: string;
}

type Space = GymWorlds;

function generate(gym: Space, t: SplitTask): ManifestTask[] {
  const world = gym.world(t.world);
  const variantId = t.variant === undefined ? undefined : gym.harness.variantId(t.variant);
  return t.seeds.map((seed) => {
    const task = world.generateTask({
      family: t.family,
      difficulty: t.difficulty,
      seed,
      split: "regression",
    });
    return {
      key: {
        world: world.id,
        ...(variantId ? { variant: variantId } : {}),
        family: t.family,
        difficulty: t.difficulty,
      },
      ...(t.variant !== undefined ? { variant: t.variant } : {}),
      seed,
      template: task.generator.template,
      contentHash: task.generator.contentHash,
    };
  });
}

function manifest(split: "regression" | "heldout", version: number, tasks: ManifestTask[]): TaskManifest {
  const hashed = tasks.map((t) => ({
    key: t.key,
    seed: t.seed,
    template: t.template,
    contentHash: t.contentHash,
  }));
  return { split, version, tasks, hash: hashJson({ split, version, tasks: hashed }) };
}

/**
 * The regression split, generated: every declared task × seed, in file order, with a manifest hash
 * over the split's version and each task's key, seed, template and content hash. The same file and
 * the same generators give the same hash in every run; a changed generator changes it.
 */
export function regressionManifest(split: SplitFile, gym: Space): TaskManifest {
  return manifest(
    "regression",
    split.regression.version,
    split.regression.tasks.flatMap((t) => generate(gym, t)),
  );
}

/**
 * The held-out split: its explicit tasks, else each held-out family (and variant) key × the held-out seeds.
 */
export function heldoutManifest(
  split: SplitFile,
  gym: Space,
  keys: { key: TaskKey; variant?: JsonValue }[],
): TaskManifest {
  const tasks: SplitTask[] = split.heldout.tasks.length
    ? split.heldout.tasks
    : keys.map((k) => ({
        world: k.key.world,
        ...(k.variant !== undefined ? { variant: k.variant } : {}),
        family: k.key.family,
        difficulty: k.key.difficulty,
        seeds: split.heldout.seeds,
      }));
  return manifest(
    "heldout",
    split.regression.version,
    tasks.flatMap((t) => generate(gym, t)),
  );
}
