import type { Command } from "commander";
import { collect, intOption } from "./context.ts";

/** The per-trial budget flags of `run` (and `run --split`) and `curriculum run`. */
export interface BudgetFlags {
  maxSteps?: number;
  timeoutMs?: number;
}

export interface AgentStoreOptionsSpec {
  /** `--agent` given once (`curriculum run`) or repeatable, collected into a list (`run`). */
  agents: "one" | "many";
  /** The help of `--world` (repeatable either way): which worlds the command reads it for. */
  world: string;
}

/**
 * The agent, world, budget and store options `run` and `curriculum run` share: `--agent`,
 * `--world`, `--max-steps`, `--timeout-ms` and `--store`, with the same parsing and help texts.
 */
export function agentStoreOptions(command: Command, spec: AgentStoreOptionsSpec): Command {
  const agentHelp = "agent: scripted policy name, ./module.mjs|.ts, or kind:spec";
  return (
    spec.agents === "many"
      ? command.option("--agent <spec>", `${agentHelp} (repeatable)`, collect)
      : command.option("--agent <spec>", agentHelp)
  )
    .option("--world <id>", spec.world, collect)
    .option("--max-steps <n>", "step budget per trial", intOption("--max-steps"))
    .option("--timeout-ms <n>", "wall-clock budget per trial", intOption("--timeout-ms"))
    .option(
      "--store <path>",
      "SQLite store, or postgres://... (default .proving/proving.db, or $PROVING_STORE)",
    );
}

/** `base` with the flags' `--max-steps` and `--timeout-ms` (as `wallTimeoutMs`) on top. */
export function budgetWithFlags<B extends object>(
  base: B,
  flags: BudgetFlags,
): B & { maxSteps?: number; wallTimeoutMs?: number } {
  return {
    ...base,
    ...(flags.maxSteps !== undefined ? { maxSteps: flags.maxSteps } : {}),
    ...(flags.timeoutMs !== undefined ? { wallTimeoutMs: flags.timeoutMs } : {}),
  };
}
