import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { configError } from "../core/errors.ts";
import type { JsonValue } from "../core/json.ts";

/** One frozen task of the regression (or held-out) split: a key and its seeds. */
export interface SplitTask {
  world: string;
  /** A harness variant `{world, layers}` (its id is computed by the gym's harness). */
  variant?: JsonValue;
  family: string;
  difficulty: number;
  seeds: number[];
}

/**
 * What a split file declares. `regression`: a frozen, versioned list of tasks and seeds, identical in
 * every run and never adapted. `dynamic`: the space the curriculum generates from and adapts over.
 * `heldout`: families (and variants) never sampled for training, evaluated apart.
 */
export interface SplitFile {
  schemaVersion: 1;
  name: string;
  regression: { version: number; tasks: SplitTask[] };
  dynamic: {
    worlds: string[];
    /** Default: every family of the worlds (held-out ones excepted). */
    families?: string[];
    /** Default: each family's own difficulties. */
    difficulties?: number[];
    variants?: JsonValue[];
  };
  heldout: {
    families: string[];
    variants: JsonValue[];
    difficulties?: number[];
    seeds: number[];
    tasks: SplitTask[];
  };
}

export const SPLIT_NAMES = ["regression", "dynamic", "heldout"] as const;
export type SplitName = (typeof SPLIT_NAMES)[number];

const seed = z.number().int();
const task = z
  .object({
    world: z.string().min(1),
    variant: z.unknown().optional(),
    family: z.string().min(1),
    difficulty: z.number(),
    seed: seed.optional(),
    seeds: z.array(seed).min(1).optional(),
  })
  .strict()
  .refine((t) => (t.seed === undefined) !== (t.seeds === undefined), "give `seed` or `seeds`, not both");

const schema = z
  .object({
    schemaVersion: z.literal(1).default(1),
    name: z.string().min(1),
    regression: z.object({ version: z.number().int().min(1), tasks: z.array(task).min(1) }).strict(),
    dynamic: z
      .object({
        worlds: z.array(z.string().min(1)).min(1),
        families: z.array(z.string()).min(1).optional(),
        difficulties: z.array(z.number()).min(1).optional(),
        variants: z.array(z.unknown()).optional(),
      })
      .strict(),
    heldout: z
      .object({
        families: z.array(z.string()).default([]),
        variants: z.array(z.unknown()).default([]),
        difficulties: z.array(z.number()).min(1).optional(),
        seeds: z.array(seed).min(1).default([1]),
        tasks: z.array(task).default([]),
      })
      .strict()
      .default({ families: [], variants: [], seeds: [1], tasks: [] }),
  })
  .strict();

function toTask(t: z.infer<typeof task>): SplitTask {
  return {
    world: t.world,
    ...(t.variant !== undefined ? { variant: t.variant as JsonValue } : {}),
    family: t.family,
    difficulty: t.difficulty,
    seeds: t.seeds ?? [t.seed as number],
  };
}

/** Validates a split file's content (already parsed from YAML or JSON); `bad_split_file` otherwise. */
export function readSplitFile(input: unknown, where = "split file"): SplitFile {
  const parsed = schema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw configError("bad_split_file", `${where}: ${issue.path.join(".") || "(top)"}: ${issue.message}`);
  }
  const v = parsed.data;
  const split: SplitFile = {
    schemaVersion: 1,
    name: v.name,
    regression: { version: v.regression.version, tasks: v.regression.tasks.map(toTask) },
    dynamic: {
      worlds: v.dynamic.worlds,
      ...(v.dynamic.families ? { families: v.dynamic.families } : {}),
      ...(v.dynamic.difficulties ? { difficulties: v.dynamic.difficulties } : {}),
      ...(v.dynamic.variants ? { variants: v.dynamic.variants as JsonValue[] } : {}),
    },
    heldout: {
      families: v.heldout.families,
      variants: v.heldout.variants as JsonValue[],
      ...(v.heldout.difficulties ? { difficulties: v.heldout.difficulties } : {}),
      seeds: v.heldout.seeds,
      tasks: v.heldout.tasks.map(toTask),
    },
  };
  const clash = split.dynamic.families?.find((f) => split.heldout.families.includes(f));
  if (clash) throw configError("bad_split_file", `${where}: family ${clash} is both dynamic and held out`);
  return split;
}

/** Parses split-file text (YAML, which also reads JSON). */
export function parseSplitFile(text: string, where = "split file"): SplitFile {
  let data: unknown;
  try {
    data = parseYaml(text);
  } catch (err) {
    throw configError("bad_split_file", `${where}: not YAML: ${(err as Error).message}`);
  }
  return readSplitFile(data, where);
}

/** Checks a split name; `unknown_split` otherwise. */
export function splitName(name: string): SplitName {
  if (!(SPLIT_NAMES as readonly string[]).includes(name)) {
    throw configError(
      "unknown_split",
      `unknown split "${name}" (a split file declares ${SPLIT_NAMES.join(", ")})`,
    );
  }
  return name as SplitName;
}
