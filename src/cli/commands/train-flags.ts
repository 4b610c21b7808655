/** Flags and helpers `proving train transfer` and `proving train rig` share. */
import fs from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import { configError } from "../../core/errors.ts";
import type { WorldDefinition } from "../../core/registry.ts";
import type { Gym } from "../../gym/gym.ts";
import type { Store } from "../../store/store.ts";
import { collect, intOption, printJson, storePath } from "../context.ts";
import type { GymSource } from "../gym-source.ts";
import type { LearnerRigOptions } from "./train-rigger.ts";

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

/** What both experiments' actions start from. */
export interface TrainContext {
  gym: Gym;
  world: WorldDefinition;
  learner: "q" | "pg";
  seeds: number[];
  evalSeeds: number[];
  id: string;
  file: string;
}

export async function trainContext(
  flags: SharedTrainFlags,
  gymSource: GymSource,
  prefix: string,
): Promise<TrainContext> {
  const gym = await gymSource();
  return {
    gym,
    world: learnerWorld(gym, flags.world),
    learner: learnerKind(flags.learner),
    seeds: intList("--seeds", flags.seeds),
    evalSeeds: intList("--eval-seeds", flags.evalSeeds ?? "9001,9002"),
    id: experimentPrefix(flags.id, prefix),
    file: storePath(flags.store),
  };
}

/** The rigger's settings from the flags (its baseline over `families`). */
export function rigSettings(
  flags: SharedTrainFlags,
  c: TrainContext,
  store: Store,
  families: string[],
): LearnerRigOptions {
  return {
    gym: c.gym,
    world: c.world.id,
    store,
    families,
    ...(flags.rigRollouts !== undefined ? { budgetPerWeakness: flags.rigRollouts } : {}),
    ...(flags.baselineTrials !== undefined ? { baselineTrials: flags.baselineTrials } : {}),
    ...(flags.maxSteps !== undefined ? { maxSteps: flags.maxSteps } : {}),
  };
}

/**
 * Keeps a result: `train/<id>.json` beside the store, and (unless `--no-report`) the HTML report of
 * `experiment` with `section`; prints `--json` (the result with its files) or `text`.
 */
export async function keepTrainResult(
  flags: SharedTrainFlags,
  c: TrainContext,
  store: Store,
  result: { schemaVersion: 1 },
  report: { experiment: string; section: string },
): Promise<{ out: string; report?: string }> {
  let written: string | undefined;
  if (flags.report !== false) {
    const { defaultReportPath, writeHtmlReport } = await import("../../report/html/index.ts");
    const target = typeof flags.report === "string" ? flags.report : defaultReportPath(c.file, c.id);
    written = (await writeHtmlReport(store, report.experiment, target, { sections: [report.section] })).path;
  }
  const out = path.join(path.dirname(path.resolve(c.file)), "train", `${c.id}.json`);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
  return { out, ...(written ? { report: written } : {}) };
}

/** Prints a kept result: `--json` (with its files) or the text and where the files are. */
export function printTrainResult(
  flags: SharedTrainFlags,
  result: object,
  files: { out: string; report?: string },
  text: () => string,
): void {
  if (flags.json) printJson({ ...result, files: { result: files.out, report: files.report ?? null } });
  else {
    process.stdout.write(`${text()}\nresult: ${files.out}\n`);
    if (files.report) process.stdout.write(`report: ${files.report}\n`);
  }
}
