#!/usr/bin/env node
import { Command, CommanderError } from "commander";
import { registerExport } from "./commands/export.ts";
import { registerRun } from "./commands/run.ts";
import { registerSelftest } from "./commands/selftest.ts";
import { registerShow } from "./commands/show.ts";
import { registerTasks } from "./commands/tasks.ts";
import { registerWorlds } from "./commands/worlds.ts";
import { reportFailure } from "./context.ts";

process.env.AI_SDK_LOG_WARNINGS ??= "false";

export function buildProgram(): Command {
  const program = new Command("proving")
    .description("Proving Ground: an agent gym with resettable worlds, an honest runner and frozen verifiers")
    .version("0.1.0")
    .showHelpAfterError()
    .exitOverride();
  registerRun(program);
  registerSelftest(program);
  registerWorlds(program);
  registerTasks(program);
  registerShow(program);
  registerExport(program);
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
