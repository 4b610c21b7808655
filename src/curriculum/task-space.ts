import { configError } from "../core/errors.ts";
import type { JsonValue } from "../core/json.ts";
import type { GymWorlds } from "./curriculum-gym.ts";
import type { SplitFile } from "./split-file.ts";
import { type TaskKey, taskKeyId } from "./task-key.ts";

/** A key with what the curriculum needs to run it: its variant spec (when a variant) and its tags. */
export interface SpaceEntry {
  key: TaskKey;
  variant?: JsonValue;
  /** type (family), difficulty and scenario (world or variant) tags. */
  tags: string[];
}

/** The task space of a split file: what the dynamic split samples, and the held-out part kept apart. */
export interface TaskSpace {
  dynamic: SpaceEntry[];
  heldout: SpaceEntry[];
  /** Each family's difficulties in the dynamic space (`world/family` → levels). */
  levels: Record<string, number[]>;
}

/** The difficulty controller's family name of a key: `world-or-variant/family`. */
export function familyOf(key: TaskKey): string {
  return `${key.variant ?? key.world}/${key.family}`;
}

type Space = GymWorlds;

function entries(
  gym: Space,
  base: string,
  variant: JsonValue | undefined,
  keep: (family: string) => boolean,
  difficulties: number[] | undefined,
): SpaceEntry[] {
  const world = gym.world(base);
  const variantId = variant === undefined ? undefined : gym.harness.variantId(variant);
  const out: SpaceEntry[] = [];
  for (const f of world.families) {
    if (!keep(f.name)) continue;
    const ds = difficulties ? f.difficulties.filter((d) => difficulties.includes(d)) : f.difficulties;
    for (const difficulty of ds) {
      const key: TaskKey = {
        world: world.id,
        ...(variantId ? { variant: variantId } : {}),
        family: f.name,
        difficulty,
      };
      out.push({
        key,
        ...(variant !== undefined ? { variant } : {}),
        tags: [`type:${f.name}`, `difficulty:${difficulty}`, `scenario:${variantId ?? world.id}`],
      });
    }
  }
  return out;
}

/**
 * Expands a split file's dynamic and held-out declarations into task keys, checked against the gym's
 * worlds: each world (and each variant) × family × difficulty. Held-out families and variants never
 * appear in `dynamic`.
 */
export function buildTaskSpace(split: SplitFile, gym: Space): TaskSpace {
  const { dynamic, heldout } = split;
  const heldFamilies = new Set(heldout.families);
  for (const w of dynamic.worlds) {
    const world = gym.world(w);
    for (const f of [...(dynamic.families ?? []), ...heldout.families]) {
      if (!world.families.some((x) => x.name === f) && dynamic.worlds.length === 1) {
        throw configError("unknown_family", `split ${split.name}: ${world.id} has no family ${f}`);
      }
    }
  }
  const dynFamily = (f: string) =>
    !heldFamilies.has(f) && (!dynamic.families || dynamic.families.includes(f));
  const out: SpaceEntry[] = [];
  for (const w of dynamic.worlds) out.push(...entries(gym, w, undefined, dynFamily, dynamic.difficulties));
  for (const v of dynamic.variants ?? []) {
    const spec = gym.harness.normalize(v);
    out.push(...entries(gym, spec.world, v, dynFamily, dynamic.difficulties));
  }
  const held: SpaceEntry[] = [];
  for (const w of dynamic.worlds) {
    held.push(...entries(gym, w, undefined, (f) => heldFamilies.has(f), heldout.difficulties));
  }
  for (const v of heldout.variants) {
    const spec = gym.harness.normalize(v);
    held.push(...entries(gym, spec.world, v, () => true, heldout.difficulties));
  }
  if (out.length === 0)
    throw configError("empty_task_space", `split ${split.name}: the dynamic split has no task`);
  const seen = new Set<string>();
  for (const e of out) {
    const id = taskKeyId(e.key);
    if (seen.has(id))
      throw configError("duplicate_task_key", `split ${split.name}: task key ${id} is listed twice`);
    seen.add(id);
  }
  const levels: Record<string, number[]> = {};
  for (const e of out) {
    const family = familyOf(e.key);
    if (!levels[family]) levels[family] = [];
    levels[family].push(e.key.difficulty);
  }
  for (const l of Object.values(levels)) l.sort((a, b) => a - b);
  return { dynamic: out, heldout: held, levels };
}
