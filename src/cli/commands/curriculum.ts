/**
 * `proving curriculum run|review|report|show`: the commands and their options (the flags' types are
 * in `curriculum-flags.ts`).
 * What each does is in `curriculum-actions.ts`, loaded when it runs.
 */
import type { Command } from "commander";
import { agentStoreOptions } from "../agent-store-options.ts";
import { collect, intOption } from "../context.ts";
import type { GymSource } from "../gym-source.ts";
import type { CurriculumFlags, CurriculumReportFlags, ReviewFlags } from "./curriculum-flags.ts";

export function registerCurriculum(program: Command, gymSource: GymSource): void {
  const curriculum = program
    .command("curriculum")
    .description("adaptive curriculum: sampled training episodes, a frozen regression split, review");

  agentStoreOptions(
    curriculum
      .command("run")
      .description("drive an agent through N sampled episodes, evaluating the regression split every M"),
    { agents: "one", world: "world of the dynamic split (repeatable; default device-support@1)" },
  )
    .option("--episodes <n>", "episodes in all (a resume runs what is left)", intOption("--episodes"))
    .option(
      "--strategy <name>",
      "uniform | target-band | learnability (default) | learnability-recovery | plr | learning-progress",
    )
    .option("--seed <n>", "the run's seed (sampler and episode seeds)", intOption("--seed"))
    .option(
      "--eval-every <n>",
      "evaluate the regression split every N episodes (default 50)",
      intOption("--eval-every"),
    )
    .option("--id <name>", "run id; run again with the same id to resume")
    .option(
      "--policy <file-or-id>",
      "the agent is a saved learner policy, played frozen (a JSON file, or a stored policy's hash or unique prefix)",
    )
    .option("--splits <file>", "split file (YAML): regression, dynamic, heldout")
    .option(
      "--snapshot-every <n>",
      "store a sampler snapshot every N episodes (default 10)",
      intOption("--snapshot-every"),
    )
    .option("--horizon <stages>", "interaction horizon: EPISODE:MAXSTEPS pairs, e.g. 0:20,100:60")
    .option("--no-difficulty", "no per-family difficulty adjustment: the sampler picks any difficulty")
    .option("--no-stored-variants", "leave the store's accepted variants (the rigger's) out of a new run")
    .option(
      "--pool <n>",
      "pre-generate N gated tasks per key into the store (in a worker thread) and sample only those",
      intOption("--pool"),
    )
    .option(
      "--pool-id <id>",
      "the pool to sample from (default: the run id), e.g. one `curriculum review --pool` filled",
    )
    .option(
      "--pool-timeout-ms <n>",
      "a task generation taking longer fails (default 10000)",
      intOption("--pool-timeout-ms"),
    )
    .option(
      "--require-review",
      "sample only pooled tasks and stored variants approved by `curriculum review` (implies --pool 4)",
    )
    .option("--json", "print the run as one JSON document")
    .action(async (flags: CurriculumFlags) =>
      (await import("./curriculum-actions.ts")).curriculumRunCommand(flags, await gymSource()),
    );

  curriculum
    .command("review")
    .description(
      "spot-check new tasks (or the store's variants): show each (instruction, params, known-good trajectory), record approve/reject",
    )
    .option("--pool <id>", "the task pool to fill and review (a curriculum run id, or a name)", "review")
    .option("--variants", "review the store's accepted variants instead of pooled tasks")
    .option("--world <id>", "world whose tasks to generate (repeatable; default device-support@1)", collect)
    .option("--splits <file>", "split file whose dynamic space to generate from")
    .option(
      "--seed <n>",
      "the seeds' run seed (as `curriculum run --seed`) and the sampling seed",
      intOption("--seed"),
    )
    .option(
      "--per-key <n>",
      "tasks generated per key when filling the pool (default 2)",
      intOption("--per-key"),
    )
    .option("--sample <n>", "how many unreviewed items to show (default 5)", intOption("--sample"))
    .option("--approve <id>", "approve an item (repeatable)", collect)
    .option("--reject <id>", "reject an item (repeatable)", collect)
    .option("--note <text>", "the note recorded with --approve/--reject")
    .option("--store <path>", "SQLite file or postgres:// URL")
    .option("--json", "print the items (and decisions) as JSON")
    .action(async (flags: ReviewFlags) =>
      (await import("./curriculum-actions.ts")).curriculumReviewCommand(flags, await gymSource()),
    );

  curriculum
    .command("report")
    .description(
      "write the HTML report of a stored curriculum run, with its curriculum section and health checks",
    )
    .argument("<name>", "curriculum run id")
    .option("--out <file>", "where to write it (default reports/NAME.html beside the store)")
    .option(
      "--window <n>",
      "episodes per window (round) of the charts and checks (default 25)",
      intOption("--window"),
    )
    .option("--store <path>", "SQLite file or postgres:// URL")
    .option("--json", "print {path, bytes, health} as JSON")
    .action(async (name: string, flags: CurriculumReportFlags) =>
      (await import("./curriculum-actions.ts")).curriculumReportCommand(name, flags),
    );

  curriculum
    .command("show")
    .description("print a stored curriculum run's summary (the same document as `curriculum run --json`)")
    .argument("<name>", "curriculum run id")
    .option("--store <path>", "SQLite file or postgres:// URL")
    .option("--json", "print one JSON document")
    .action(async (name: string, flags: { store?: string; json?: boolean }) =>
      (await import("./curriculum-actions.ts")).curriculumShowCommand(name, flags),
    );
}
