import type { Command } from "commander";
import pc from "picocolors";
import { printJson } from "../context.ts";
import type { GymSource } from "../gym-source.ts";

export function registerWorlds(program: Command, gymSource: GymSource): void {
  program
    .command("worlds")
    .description("list the worlds, their task families, tools and scripted policies")
    .option("--json", "print as JSON")
    .action(async (flags: { json?: boolean }) => {
      const worlds = (await gymSource()).registry.listWorlds().map((w) => {
        const env = w.create();
        return {
          id: w.id,
          description: w.description,
          verifier: w.verifier,
          families: w.families,
          tools: env.spec.tools,
          policies: Object.keys(w.policies),
          knownGood: w.knownGood,
        };
      });
      if (flags.json) return printJson({ worlds });
      for (const w of worlds) {
        process.stdout.write(`${pc.bold(w.id)}  ${w.description}\n  verifier: ${w.verifier}\n  families:\n`);
        for (const f of w.families) {
          process.stdout.write(
            `    ${f.name.padEnd(24)} ${f.description} (difficulty ${f.difficulties.join(",")})\n`,
          );
        }
        process.stdout.write(`  tools: ${w.tools.map((t) => t.name).join(", ")}\n`);
        process.stdout.write(`  scripted policies: ${w.policies.join(", ")} (known-good: ${w.knownGood})\n`);
      }
    });
}
