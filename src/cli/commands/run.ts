import type { Command } from "commander";
import { configError } from "../../core/errors.ts";
import { summarizeExperiment } from "../../report/summary.ts";
import { renderTerminalReport } from "../../report/terminal.ts";
import { DEMO_EXPERIMENT, type ExperimentConfig, parseExperiment } from "../../runner/experiment.ts";
import { type ExperimentResult, runExperiment } from "../../runner/run.ts";
import {
  cliRegistry,
  collect,
  collectInt,
  intOption,
  printJson,
  readDataFile,
  withStore,
} from "../context.ts";
import { progressReporter } from "../progress.ts";

export interface RunFlags {
  agent?: string[];
  world?: string[];
  family?: string[];
  difficulty?: number[];
  trials?: number;
  seed?: number;
  repeats?: number;
  concurrency?: number;
  maxSteps?: number;
  timeoutMs?: number;
  store?: string;
  id?: string;
  json?: boolean;
  progress?: boolean;
}

/** Builds the experiment from an optional file and the flags (flags win). No file and no flags: the demo. */
export function experimentFromFlags(file: string | undefined, flags: RunFlags): ExperimentConfig {
  const base = (file ? readDataFile(file) : { ...DEMO_EXPERIMENT }) as Record<string, unknown>;
  if (typeof base !== "object" || base === null || Array.isArray(base)) {
    throw configError("bad_experiment", `${file}: an experiment file holds one object`);
  }
  const input: Record<string, unknown> = { ...base };
  if (flags.world?.length) input.worlds = flags.world;
  if (flags.family?.length) input.families = flags.family;
  if (flags.difficulty?.length) input.difficulties = flags.difficulty;
  if (flags.agent?.length) input.agents = flags.agent;
  if (flags.trials !== undefined) input.trials = flags.trials;
  if (flags.seed !== undefined) input.seed = flags.seed;
  if (flags.repeats !== undefined) input.repeats = flags.repeats;
  if (flags.concurrency !== undefined) input.concurrency = flags.concurrency;
  if (flags.id !== undefined) input.id = flags.id;
  const budget = { ...((input.budget as object) ?? {}) } as Record<string, unknown>;
  if (flags.maxSteps !== undefined) budget.maxSteps = flags.maxSteps;
  if (flags.timeoutMs !== undefined) budget.wallTimeoutMs = flags.timeoutMs;
  if (Object.keys(budget).length) input.budget = budget;
  const registry = cliRegistry();
  const worlds = ((input.worlds as string[] | undefined) ?? ["device-support@1"]).map((w) =>
    registry.world(w),
  );
  const defaultAgents = Object.keys(worlds[0].policies).filter((p) => worlds.every((w) => w.policies[p]));
  return parseExperiment(input, defaultAgents);
}

/** The normative `run --json` document. */
export function runJson(result: ExperimentResult) {
  const summary = summarizeExperiment(result.trials);
  return {
    experiment: { id: result.experimentId, ...result.config },
    planned: summary.planned,
    outcomes: summary.outcomes,
    pass_rate: summary.pass_rate,
    violations: summary.violations,
    trials: result.trials.map((t) => ({
      id: t.trialId,
      agent: t.agent,
      world: t.world,
      ...(t.variantId ? { variant: t.variantId } : {}),
      family: t.family,
      difficulty: t.difficulty,
      seed: t.seed,
      outcome: t.outcome,
      passed: t.outcome === "passed",
      score: t.score ?? 0,
      violations: t.violations,
      steps: t.steps,
    })),
  };
}

export function registerRun(program: Command): void {
  program
    .command("run")
    .description("run an experiment (no arguments: the demo experiment) and print its report")
    .argument("[experiment-file]", "experiment definition (JSON or YAML)")
    .option(
      "--agent <spec>",
      "agent: scripted policy name, ./module.mjs|.ts, or kind:spec (repeatable)",
      collect,
    )
    .option("--world <id>", "world id, e.g. device-support@1 (repeatable)", collect)
    .option("--family <name>", "task family (repeatable; default all)", collect)
    .option("--difficulty <n>", "difficulty 1-5 (repeatable)", collectInt("--difficulty"))
    .option("--trials <n>", "seeds per world × family × difficulty × agent", intOption("--trials"))
    .option("--seed <n>", "base seed", intOption("--seed"))
    .option("--repeats <n>", "repeats of each (task, seed, agent)", intOption("--repeats"))
    .option("--concurrency <n>", "trials run at once (default: CPU count)", intOption("--concurrency"))
    .option("--max-steps <n>", "step budget per trial", intOption("--max-steps"))
    .option("--timeout-ms <n>", "wall-clock budget per trial", intOption("--timeout-ms"))
    .option("--id <name>", "experiment id (default: generated); resume it with `proving resume NAME`")
    .option("--store <path>", "SQLite store (default .proving/proving.db, or $PROVING_STORE)")
    .option("--no-progress", "no live progress on stderr")
    .option("--json", "print the result as one JSON document")
    .action(async (file: string | undefined, flags: RunFlags) => {
      const config = experimentFromFlags(file, flags);
      const registry = cliRegistry();
      const progress = progressReporter({ enabled: flags.progress !== false });
      const result = await withStore(flags.store, "write", async (store) => {
        if (config.id && (await store.getExperiment(config.id))) {
          throw configError(
            "experiment_exists",
            `experiment ${config.id} exists; use \`proving resume ${config.id}\``,
          );
        }
        return runExperiment(config, { registry, store, onTrial: (_r, p) => progress.update(p) });
      }).finally(() => progress.stop());
      if (flags.json) printJson(runJson(result));
      else
        process.stdout.write(
          `${renderTerminalReport(result.experimentId, summarizeExperiment(result.trials))}\n`,
        );
    });
}
