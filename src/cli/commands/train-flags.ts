/** Flags and helpers `proving train transfer` and `proving train rig` share. */
import type { Command } from "commander";
import { configError } from "../../core/errors.ts";
import type { WorldDefinition } from "../../core/registry.ts";
import type { Gym } from "../../gym/gym.ts";
import { collect, intOption } from "../context.ts";

export interface SharedTrainFlags {
  world: string;
  learner: string;
  seeds: string;
  heldout?: string[];
  evalSeeds?: string;
  rigRollouts?: number;
  baselineTrials?: number;
  maxSteps?: number;
  id?: string;
  store?: string;
  report?: string | boolean;
  json?: boolean;
}

/** `1,2,3` → [1, 2, 3] (integers, at least one, no repeats). */
export function intList(flag: string, text: string): number[] {
  const values = text.split(",").map((s) => Number(s.trim()));
  if (
    values.length === 0 ||
    values.some((n) => !Number.isInteger(n)) ||
    new Set(values).size !== values.length
  )
    throw configError("bad_flag", `${flag}: expected distinct integers separated by commas, got "${text}"`);
  return values;
}

/** The options both experiments take. */
export function sharedTrainOptions(cmd: Command): Command {
  return cmd
    .option("--world <id>", "a world with admissible actions", "device-support@1")
    .option("--learner <kind>", "q (tabular Q-learning) or pg (REINFORCE)", "q")
    .option(
      "--seeds <list>",
      "training seeds, comma-separated (one learner per seed; paired by seed)",
      "1,2,3,4,5",
    )
    .option("--heldout <family>", "a family held out of training, evaluated apart (repeatable)", collect)
    .option(
      "--eval-seeds <list>",
      "task seeds of the evaluation tasks (each family × difficulty 1-3)",
      "9001,9002",
    )
    .option(
      "--rig-rollouts <n>",
      "the rigger's target validation rollouts per weakness (default 50)",
      intOption("--rig-rollouts"),
    )
    .option(
      "--baseline-trials <n>",
      "the rigger's baseline seeds per family × difficulty (default 2)",
      intOption("--baseline-trials"),
    )
    .option("--max-steps <n>", "step budget per episode (default 60)", intOption("--max-steps"))
    .option("--id <name>", "experiment id prefix (default: generated)")
    .option("--store <path>", "SQLite store (default .proving/proving.db, or $PROVING_STORE)")
    .option("--report <path>", "write the HTML report here (default reports/<id>.html beside the store)")
    .option("--no-report", "do not write the HTML report")
    .option("--json", "print the result as one JSON document (schemaVersion 1)");
}

/** The world, checked to declare admissible actions (what the learners choose among). */
export function learnerWorld(gym: Gym, id: string): WorldDefinition {
  const world = gym.world(id);
  if (!world.create().capabilities.admissible)
    throw configError(
      "bad_flag",
      `--world ${id}: the world declares no admissible actions (the learners need them)`,
    );
  return world;
}

export function learnerKind(text: string): "q" | "pg" {
  if (text !== "q" && text !== "pg") throw configError("bad_flag", `--learner: q or pg, got "${text}"`);
  return text;
}

/** `--id`, or `<prefix>-YYYYMMDDhhmmss`. */
export function experimentPrefix(flag: string | undefined, prefix: string): string {
  return (
    flag ??
    `${prefix}-${new Date()
      .toISOString()
      .replace(/[-:.TZ]/g, "")
      .slice(0, 14)}`
  );
}
