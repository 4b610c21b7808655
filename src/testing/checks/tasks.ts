import type { Scope } from "../check-run.ts";
import { cellName } from "../subject.ts";
import type { CheckPlan, PlannedCheck } from "./planned-check.ts";

/** Task generation is deterministic from (family, difficulty, seed), records them and is plain JSON. */
export function taskChecks({ subject }: CheckPlan): PlannedCheck[] {
  const world = subject.world;
  const cells = subject.families.flatMap((f) => subject.cells(f.name));
  return [
    {
      name: "tasks: generation is deterministic and records (world, family, difficulty, seed)",
      kind: "tasks",
      ...(cells.length === 0 ? { notCheckable: "no family × difficulty is selected" } : {}),
      covers: `${cells.length} tasks`,
      async run(run) {
        for (const cell of cells) {
          await run.scope(cellName(cell), async (s: Scope) => {
            const a = subject.task(cell);
            s.equal(subject.task(cell), a, "two generations differ");
            s.equal(a.world, world.id, "task.world");
            s.equal(a.family, cell.family, "task.family");
            s.equal(a.difficulty, cell.difficulty, "task.difficulty");
            s.equal(a.seed, cell.seed, "task.seed");
            s.expect(typeof a.instruction === "string" && a.instruction.length > 0, "empty instruction");
            s.expect(a.generator?.contentHash?.length > 0, "no content hash");
            s.equal(JSON.parse(JSON.stringify(a)), a, "a task is plain JSON");
          });
        }
        if (subject.seeds.length < 2) return;
        for (const f of subject.families) {
          const difficulty = subject.difficultiesOf(f.name)[0];
          if (difficulty === undefined) continue;
          await run.scope(f.name, async (s: Scope) => {
            const ids = new Set(
              subject.seeds.map((seed) => subject.task({ family: f.name, difficulty, seed }).id),
            );
            s.equal(
              ids.size,
              subject.seeds.length,
              `different seeds give different task ids at d${difficulty}`,
            );
          });
        }
      },
    },
  ];
}
