#!/usr/bin/env node
import { Command, CommanderError } from "commander";
import { registerAudit } from "./commands/audit.ts";
import { registerCompare } from "./commands/compare.ts";
import { registerCurriculum } from "./commands/curriculum.ts";
import { registerExport } from "./commands/export.ts";
import { registerFakeLlm } from "./commands/fake-llm.ts";
import { registerLearn } from "./commands/learn.ts";
import { registerMcp } from "./commands/mcp.ts";
import { registerPolicies } from "./commands/policies.ts";
import { registerReplay } from "./commands/replay.ts";
import { registerReport } from "./commands/report.ts";
import { registerResume } from "./commands/resume.ts";
import { registerRig } from "./commands/rig.ts";
import { registerRun } from "./commands/run.ts";
import { registerSelftest } from "./commands/selftest.ts";
import { registerServe } from "./commands/serve.ts";
import { registerShow } from "./commands/show.ts";
import { registerStatus } from "./commands/status.ts";
import { registerTasks } from "./commands/tasks.ts";
import { registerTrain } from "./commands/train.ts";
import { registerVerify } from "./commands/verify.ts";
import { registerWorker } from "./commands/worker.ts";
import { registerWorlds } from "./commands/worlds.ts";
import { reportFailure } from "./context.ts";
import { cliGymSource } from "./gym-source.ts";

// the AI SDK reads this global (not the environment variable) before printing warnings to the console
(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

export function buildProgram(): Command {
  const program = new Command("proving")
    .description("Proving Ground: an agent gym with resettable worlds, an honest runner and frozen verifiers")
    .version("0.1.0")
    // bad flags get the same one-line `proving: error: ...` as every other error (no help dump)
    .configureOutput({ outputError: (text, write) => write(`proving: ${text.trim()} (see --help)\n`) })
    .option(
      "--gym <file>",
      "a gym description (JSON/YAML; or $PROVING_GYM) whose plugins add worlds, rules, agent kinds",
    )
    .exitOverride();
  const gym = cliGymSource(program);
  registerRun(program, gym);
  registerResume(program, gym);
  registerReplay(program, gym);
  registerCompare(program);
  registerSelftest(program, gym);
  registerWorlds(program, gym);
  registerFakeLlm(program, gym);
  registerTasks(program, gym);
  registerShow(program);
  registerPolicies(program);
  registerExport(program);
  registerLearn(program, gym);
  registerReport(program);
  registerServe(program, gym);
  registerMcp(program, gym);
  registerCurriculum(program, gym);
  registerRig(program, gym);
  registerTrain(program, gym);
  registerAudit(program, gym);
  registerWorker(program);
  registerStatus(program);
  registerVerify(program);
  return program;
}

export async function main(argv: string[]): Promise<void> {
  try {
    await buildProgram().parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      process.exit(err.exitCode === 0 ? 0 : 2);
    }
    reportFailure(err);
  }
}

await main(process.argv);
