import type { Command } from "commander";
import { configError } from "../../core/errors.ts";
import type { ReplayResult } from "../../runner/replay.ts";
import { printJson, withStore } from "../context.ts";
import type { GymSource } from "../gym-source.ts";

const short = (v: unknown, max = 400) => {
  const s = JSON.stringify(v);
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
};

export function renderReplay(r: ReplayResult): string {
  if (r.reproduced)
    return `Trial ${r.trialId} reproduces exactly: ${r.steps} step(s), same observations and verdict.`;
  const d = r.divergence!;
  const where = d.step < 0 ? "before the first step" : `at step ${d.step}`;
  return [
    `Trial ${r.trialId} diverges ${where} (${d.what}), after ${r.steps} replayed step(s):`,
    `  expected ${short(d.expected)}`,
    `  actual   ${short(d.actual)}`,
  ].join("\n");
}

export function registerReplay(program: Command, gymSource: GymSource): void {
  program
    .command("replay")
    .description(
      "re-run a recorded trial's actions against a fresh world and report the first step that diverges",
    )
    .argument("<trial-id>", "trial id (from `run --json`, reports or `export`)")
    .option("--store <path>", "SQLite store (default .proving/proving.db, or $PROVING_STORE)")
    .option("--exit-code", "exit 1 when the replay diverges")
    .option("--json", "print {trialId, reproduced, steps, divergence?: {step, what, expected, actual}}")
    .action(async (trialId: string, flags: { store?: string; json?: boolean; exitCode?: boolean }) => {
      const { verificationWarning } = await import("../../report/record-verification-text.ts");
      const record = await withStore(flags.store, "read", async (store) => {
        const found = await store.getTrial(trialId);
        // the record replayed is checked first: a changed one is replayed, with a warning
        const v = found && (await store.verifyRecords(found.spec.experimentId, { trialId }));
        const warning = v && verificationWarning(v);
        if (warning) process.stderr.write(`proving: warning: ${warning}\n`);
        return found;
      });
      if (!record) throw configError("unknown_trial", `no trial ${trialId} in the store`);
      const gym = await gymSource();
      const { replayTrial } = await import("../../runner/replay.ts");
      const result = await replayTrial(record, {
        registry: gym.registry,
        environment: gym.harness.environment,
      });
      if (flags.json) printJson(result);
      else process.stdout.write(`${renderReplay(result)}\n`);
      if (flags.exitCode && !result.reproduced) process.exitCode = 1;
    });
}
