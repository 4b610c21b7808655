import type { Command } from "commander";
import pc from "picocolors";
import type { Task } from "../../core/contracts.ts";
import { collect, collectInt, intOption, printJson } from "../context.ts";
import type { GymSource } from "../gym-source.ts";

export function registerTasks(program: Command, gymSource: GymSource): void {
  program
    .command("tasks")
    .description("generate and list tasks of a world (deterministic from family, difficulty and seed)")
    .option("--world <id>", "world id", "device-support@1")
    .option("--family <name>", "family (repeatable; default all)", collect)
    .option("--difficulty <n>", "difficulty (repeatable; default 1-5)", collectInt("--difficulty"))
    .option("--seed <n>", "first seed", intOption("--seed"), 0)
    .option("--count <n>", "seeds per family × difficulty", intOption("--count"), 1)
    .option("--params", "include the hidden task parameters")
    .option("--json", "print as JSON")
    .action(
      async (flags: {
        world: string;
        family?: string[];
        difficulty?: number[];
        seed: number;
        count: number;
        params?: boolean;
        json?: boolean;
      }) => {
        const world = (await gymSource()).registry.world(flags.world);
        const families = flags.family ?? world.families.map((f) => f.name);
        const tasks: Task[] = [];
        for (const family of families) {
          for (const difficulty of flags.difficulty ?? [1, 2, 3, 4, 5]) {
            for (let i = 0; i < flags.count; i++)
              tasks.push(world.generateTask({ family, difficulty, seed: flags.seed + i }));
          }
        }
        const shown = tasks.map((t) => (flags.params ? t : { ...t, params: undefined }));
        if (flags.json) return printJson({ world: world.id, tasks: shown });
        for (const t of tasks) {
          process.stdout.write(`${pc.bold(t.id)}  [${t.tags.join(", ")}]\n  ${pc.dim(t.instruction)}\n`);
        }
      },
    );
}
