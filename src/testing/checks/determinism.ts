import type { Scope } from "../check-run.ts";
import { agentActions, randomWalk, replay, rngFor } from "../episodes.ts";
import { cellName } from "../subject.ts";
import { type CheckPlan, noCells, type PlannedCheck } from "./planned-check.ts";

/** Steps of a random walk (per cell). */
const WALK_STEPS = 40;

/**
 * Determinism, per family: the same (task, seed, actions) gives the same trajectory — the known-good
 * policy through the runner twice (same trajectory hash), its actions replayed twice (same results,
 * and the runner's observations), seeded random walks replayed twice.
 */
export function determinismChecks(plan: CheckPlan): PlannedCheck[] {
  const { subject } = plan;
  const noGood = subject.knownGoodProblem();
  return subject.families.map((family) => {
    const cells = subject.cells(family.name);
    const reason = noGood ?? noCells(plan, family.name);
    return {
      name: `determinism: ${family.name}: same (task, seed, actions) → same trajectory hash`,
      kind: "determinism",
      ...(reason ? { notCheckable: reason } : {}),
      covers: `${cells.length} tasks: ${subject.knownGood} twice through the runner, its actions and a ${WALK_STEPS}-step random walk replayed twice`,
      async run(run) {
        for (const cell of cells) {
          await run.scope(cellName(cell), async (s: Scope) => {
            const a = await subject.runPolicy(subject.knownGood, cell);
            const b = await subject.runPolicy(subject.knownGood, cell, true);
            s.expect(a.trajectoryHash.length > 0, "no trajectory hash");
            s.expect(
              b.trajectoryHash === a.trajectoryHash,
              `two runs of ${subject.knownGood} differ (${a.outcome}: ${a.reason} / ${b.outcome}: ${b.reason})`,
            );
            const actions = agentActions(a);
            const r1 = await replay(subject, cell, actions, a.spec.id);
            const r2 = await replay(subject, cell, actions, a.spec.id);
            s.expect(r2.hash === r1.hash, "replaying the same actions differs");
            s.equal(r1.initial, a.initial, "the replayed reset observation differs from the runner's record");
            s.equal(
              r1.results.map((r) => r.observation),
              a.steps.filter((x) => !x.setup).map((x) => x.observation),
              "replayed observations differ from the runner's record",
            );
            const walk = await randomWalk(subject, cell, rngFor("walk", cell), WALK_STEPS);
            const w1 = await replay(subject, cell, walk);
            const w2 = await replay(subject, cell, walk);
            s.expect(w2.hash === w1.hash, "replaying a random walk differs");
          });
        }
      },
    };
  });
}
