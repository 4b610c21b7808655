import type { Command } from "commander";
import { agentStoreOptions } from "../agent-store-options.ts";
import { collect, collectInt, intOption, numberOption } from "../context.ts";
import type { GymSource } from "../gym-source.ts";
import type { RunFlags } from "./run-flags.ts";

/** Options `run` and `resume` share: how trials run and what is printed and written at the end. */
export function runOutputOptions(command: Command): Command {
  return command
    .option("--reuse-envs", "let each worker reuse its world instances across trials (reset between them)")
    .option("--no-progress", "no live progress on stderr")
    .option(
      "--report <path>",
      "write the HTML report here (default: reports/<experiment>.html beside the store)",
    )
    .option("--no-report", "do not write the HTML report")
    .option("--json", "print the result as one JSON document");
}

export function registerRun(program: Command, gymSource: GymSource): void {
  const run = agentStoreOptions(
    program
      .command("run")
      .description("run an experiment (no arguments: the demo experiment) and print its report")
      .argument("[experiment-file]", "experiment definition (JSON or YAML)"),
    { agents: "many", world: "world id, e.g. device-support@1 (repeatable)" },
  )
    .option("--family <name>", "task family (repeatable; default all)", collect)
    .option("--difficulty <n>", "difficulty 1-5 (repeatable)", collectInt("--difficulty"))
    .option("--trials <n>", "seeds per world × family × difficulty × agent", intOption("--trials"))
    .option("--seed <n>", "base seed", intOption("--seed"))
    .option("--repeats <n>", "repeats of each (task, seed, agent)", intOption("--repeats"))
    .option("--concurrency <n>", "trials run at once (default: CPU count)", intOption("--concurrency"))
    .option("--max-tokens <n>", "token budget per trial (LLM agents)", intOption("--max-tokens"))
    .option("--max-cost-usd <x>", "cost budget per trial in USD (LLM agents)", numberOption("--max-cost-usd"))
    .option("--id <name>", "experiment id (default: generated); resume it with `proving resume NAME`")
    .option(
      "--queue <url>",
      "enqueue the trials on Redis (redis://HOST:PORT/DB) for `proving worker`s; needs a postgres:// --store",
    )
    .option("--detach", "with --queue: return once the trials are enqueued (follow with `proving status`)")
    .option(
      "--attempts <n>",
      "with --queue: attempts per trial (a throw, a crash, out of memory) before it is recorded as infra_error (default 3)",
      intOption("--attempts"),
    )
    .option(
      "--force",
      "take over the experiment's lease from a process that died (see `proving resume --force`)",
    )
    .option(
      "--variant <file-or-json>",
      "harness variant {world, layers: [{id, params}]}: JSON or a JSON/YAML file (repeatable)",
      collect,
    )
    .option(
      "--remote <url>",
      "play the world of a `proving serve` server, or any OpenEnv server (reward-judged), at URL (token: $PROVING_REMOTE_TOKEN)",
    )
    .option(
      "--policy <file-or-id>",
      "play a saved learner policy frozen (a JSON file, or a stored policy's hash or unique prefix; see `proving policies`)",
    )
    .option("--split <name>", "run one split (regression, dynamic, heldout) of the split file for one agent")
    .option("--splits <file>", "split file (YAML) for --split (default: the default split of --world)")
    .option(
      "--sandbox <mode>",
      "the sandbox of cmd:/cmd-jsonl: programs and module agents: auto (bubblewrap where it works, else without it and a warning), require (refuse to run without it; the default when CI is set), off",
    )
    .option(
      "--agent-env <name>",
      "pass this environment variable to cmd:/cmd-jsonl: agent programs (repeatable; nothing else secret is passed)",
      collect,
    );
  runOutputOptions(run).action(
    async (file: string | undefined, flags: RunFlags & { agentEnv?: string[]; sandbox?: string }) =>
      (await import("./run-action.ts")).runCommand(file, flags, gymSource),
  );
}
