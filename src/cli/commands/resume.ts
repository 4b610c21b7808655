import type { Command } from "commander";
import { summarizeExperiment } from "../../report/summary.ts";
import { renderTerminalReport } from "../../report/terminal.ts";
import { interruptOnSignals } from "../../runner/interrupt.ts";
import { intOption, printJson, withStore } from "../context.ts";
import type { GymSource } from "../gym-source.ts";
import { progressReporter } from "../progress.ts";
import { writeRunReport } from "./report.ts";
import { runOutputOptions } from "./run.ts";

interface ResumeFlags {
  store?: string;
  concurrency?: number;
  reuseEnvs?: boolean;
  json?: boolean;
  progress?: boolean;
  report?: string | boolean;
  force?: boolean;
}

export function registerResume(program: Command, gymSource: GymSource): void {
  const resume = program
    .command("resume")
    .description(
      "run only the planned trials of an experiment that have no record yet (after a kill or Ctrl-C)",
    )
    .argument("<name>", "experiment id (`proving run --id NAME`)")
    .option("--store <path>", "SQLite store (default .proving/proving.db, or $PROVING_STORE)")
    .option(
      "--concurrency <n>",
      "trials run at once (default: as planned, else CPU count)",
      intOption("--concurrency"),
    )
    .option(
      "--force",
      "take the experiment over from a process that died holding it (a live one's lease refuses the resume)",
    );
  runOutputOptions(resume).action(async (name: string, flags: ResumeFlags) => {
    const { resumeExperiment } = await import("../../runner/resume.ts");
    const { runJson } = await import("./run-action.ts");
    const gym = await gymSource();
    const progress = progressReporter({ enabled: flags.progress !== false });
    const interrupt = interruptOnSignals();
    const result = await withStore(flags.store, "read", (store) =>
      resumeExperiment(name, {
        // harness variants are planned and built by the gym's harness; plain trials get the bare world
        ...gym.runOptions(),
        store,
        signal: interrupt.signal,
        ...(flags.concurrency !== undefined ? { concurrency: flags.concurrency } : {}),
        ...(flags.reuseEnvs ? { reuseEnvironments: true } : {}),
        ...(flags.force ? { force: true } : {}),
        onTrial: (_r, p) => progress.update(p),
      }),
    ).finally(() => {
      progress.stop();
      interrupt.dispose();
    });
    const planned = result.manifest.length;
    const status = result.interrupted ? "interrupted" : "completed";
    if (flags.json) {
      printJson({
        ...runJson(result),
        resume: {
          previous_status: result.previousStatus,
          previously_recorded: result.previouslyRecorded,
          ran_now: result.ranNow,
          status,
        },
      });
    } else {
      process.stderr.write(
        `proving: ${name} was ${result.previousStatus}: ${result.previouslyRecorded} of ${planned} planned trials recorded; ran ${result.ranNow} now; ${status}\n`,
      );
      process.stdout.write(
        `${renderTerminalReport(result.experimentId, summarizeExperiment(result.trials), { trials: result.trials })}\n`,
      );
    }
    await writeRunReport(flags.store, result.experimentId, flags.report, Boolean(flags.json));
    if (result.interrupted) process.exitCode = interrupt.exitCode ?? 130;
  });
}
