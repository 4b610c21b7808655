/**
 * `proving train curriculum`: experiment 1, curriculum vs uniform. Each strategy trains a reference
 * learner through curriculum runs (one per world × strategy × seed); the frozen learner is evaluated on
 * the regression split and the held-out families every M episodes. What it does is in
 * `train-curriculum-action.ts`, loaded when it runs.
 */
import type { Command } from "commander";
import { collect, intOption, numberOption } from "../context.ts";
import type { GymSource } from "../gym-source.ts";
import type { TrainCurriculumFlags } from "./train-curriculum-action.ts";

export function registerTrainCurriculum(train: Command, gymSource: GymSource): void {
  train
    .command("curriculum")
    .description(
      "curriculum vs uniform: each strategy trains a learner (one curriculum run per world × strategy × seed); learning curves, episodes to the target, the ratio to uniform, sampling shares",
    )
    .option(
      "--world <id>",
      "world to train on, one at a time (repeatable; default device-support@1 and order-ops@1)",
      collect,
    )
    .option(
      "--strategies <list>",
      "comma-separated curriculum strategies (default: the curriculum's default, learnability, and uniform)",
    )
    .option("--learner <kind>", "q (tabular Q-learning) or pg (REINFORCE)", "q")
    .option(
      "--learner-options <query>",
      "the learner's numbers as a query, e.g. alpha=0.3&eps=0.1 (the seed is each run's)",
    )
    .option("--episodes <n>", "training episodes per run", intOption("--episodes"), 2000)
    .option(
      "--eval-every <n>",
      "evaluate the frozen learner every N episodes",
      intOption("--eval-every"),
      100,
    )
    .option("--seeds <list>", "comma-separated seeds: the learner's and the task draws'", "1,2,3,4,5")
    .option(
      "--heldout <family>",
      "a family never trained on, evaluated apart (repeatable; default: each world's last family)",
      collect,
    )
    .option("--target <rate>", "the regression pass rate a run must reach", numberOption("--target"), 0.8)
    .option("--no-difficulty", "no per-family difficulty adjustment: the sampler picks any difficulty")
    .option("--id <name>", "names the runs <id>/<world>/<strategy>/s<seed>; run again to resume or re-read")
    .option(
      "--store <path>",
      "SQLite store, or postgres://... (default .proving/proving.db, or $PROVING_STORE)",
    )
    .option("--report <file>", "write an HTML report with the learning-curves section")
    .option("--json", "print the whole result as one JSON document")
    .action(async (flags: TrainCurriculumFlags) =>
      (await import("./train-curriculum-action.ts")).trainCurriculumCommand(flags, await gymSource()),
    );
}
