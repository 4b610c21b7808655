import type { Command } from "commander";
import pc from "picocolors";
import { collect, collectInt, intOption, printJson } from "../context.ts";
import type { GymSource } from "../gym-source.ts";

export function registerSelftest(program: Command, gymSource: GymSource): void {
  program
    .command("selftest")
    .description("run every scripted policy over every family; fail unless each world keeps its promises")
    .option("--world <id>", "world to test (repeatable; default all)", collect)
    .option("--difficulty <n>", "difficulty (repeatable; default 1-5)", collectInt("--difficulty"))
    .option("--trials <n>", "seeds per family × difficulty × policy (default 3)", intOption("--trials"))
    .option("--json", "print {ok, policies: {POLICY: {FAMILY: {trials, passed, violations}}}}")
    .action(async (flags: { world?: string[]; difficulty?: number[]; trials?: number; json?: boolean }) => {
      const { runSelftest } = await import("../../testing/selftest.ts");
      const result = await runSelftest((await gymSource()).runOptions(), {
        ...(flags.world ? { worlds: flags.world } : {}),
        ...(flags.difficulty ? { difficulties: flags.difficulty } : {}),
        ...(flags.trials ? { trials: flags.trials } : {}),
      });
      if (flags.json) {
        printJson({
          ok: result.ok,
          policies: result.policies,
          problems: result.problems,
          trials: result.trials,
        });
      } else {
        for (const [policy, families] of Object.entries(result.policies)) {
          const cells = Object.entries(families).map(([family, c]) => {
            const codes = Object.keys(c.violations);
            return `${family} ${c.passed}/${c.trials}${codes.length ? ` (${codes.join(",")})` : ""}`;
          });
          process.stdout.write(`${pc.bold(policy.padEnd(16))} ${cells.join("  ")}\n`);
        }
        for (const p of result.problems) process.stdout.write(`${pc.red("✗")} ${p}\n`);
        process.stdout.write(
          result.ok
            ? `${pc.green("✓")} selftest passed (${result.trials} trials)\n`
            : `${pc.red("✗")} selftest failed\n`,
        );
      }
      if (!result.ok) process.exitCode = 1;
    });
}
