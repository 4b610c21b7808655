import type { Command } from "commander";
import { configError } from "../../core/errors.ts";
import { printJson, withStore } from "../context.ts";

export function registerShow(program: Command): void {
  program
    .command("show")
    .description("show a recorded trial's trajectory step by step, with its verdict")
    .argument("<trial-id>", "trial id (from `run --json`, reports or `export`)")
    .option("--store <path>", "SQLite store")
    .option("--json", "print the full trial record")
    .action(async (trialId: string, flags: { store?: string; json?: boolean }) => {
      await withStore(flags.store, "read", async (store) => {
        const record = await store.getTrial(trialId);
        if (!record) throw configError("unknown_trial", `no trial ${trialId} in the store`);
        if (flags.json) printJson(record);
        else {
          const { renderTrajectory } = await import("../../report/trajectory-text.ts");
          process.stdout.write(`${renderTrajectory(record)}\n`);
        }
      });
    });
}
