import type { Action, Environment, Inspection } from "../../core/contracts.ts";
import type { Scope } from "../check-run.ts";
import { agentActions, jobsView, stepAll, stepDigest, verdictOf } from "../episodes.ts";
import { type Cell, cellName, type Subject } from "../subject.ts";
import { type CheckPlan, NO_INSPECTION, noCells, type PlannedCheck } from "./planned-check.ts";

const OLD = "old";
const NEW = "new";

/** The environment's inspection (a reset check only runs when the environment declares it). */
const inspect = (env: Environment): Inspection => {
  const i = env.capabilities.inspection;
  if (!i) throw new Error(`${env.spec.id} declared inspection on one instance and not on another`);
  return i;
};

/**
 * Where to cut the known-good episode for a mid-episode reset: the first step after which background
 * jobs are pending (so reset must cancel them), else the middle. `jobs` says whether jobs were pending.
 */
async function cutOf(
  subject: Subject,
  cell: Cell,
  actions: readonly Action[],
): Promise<{ cut: number; jobs: boolean }> {
  const probe = subject.create(cell);
  await probe.reset({ task: subject.task(cell), seed: cell.seed, episodeId: OLD });
  try {
    for (let k = 0; k < actions.length - 1; k++) {
      const r = await probe.step(structuredClone(actions[k]));
      if (inspect(probe).pendingJobs().length > 0) return { cut: k + 1, jobs: true };
      if (r.terminated || r.truncated) break;
    }
    return { cut: Math.floor(actions.length / 2), jobs: false };
  } finally {
    await subject.release(probe);
  }
}

/**
 * Reset, per family: an instance reset mid-episode (background jobs pending, when the known-good
 * episode has any) to the same task and to another seed has no job of the old episode left, the state
 * hash, pending jobs and observation of a fresh instance, and plays the next episode exactly as a
 * fresh instance does (no old job fires in it).
 */
export function resetChecks(plan: CheckPlan): PlannedCheck[] {
  const { subject } = plan;
  const noGood = subject.knownGoodProblem();
  const noInspection = plan.capabilities.inspection ? undefined : NO_INSPECTION;
  const checks: PlannedCheck[] = subject.families.map((family) => {
    const cells = subject.cells(family.name, subject.seeds.slice(0, 1));
    const reason = noInspection ?? noGood ?? noCells(plan, family.name);
    return {
      name: `reset: ${family.name}: mid-episode reset leaves no old job and the fresh state hash`,
      kind: "reset",
      ...(reason ? { notCheckable: reason } : {}),
      covers: `${cells.length} tasks, each reset mid-episode to itself and to the next seed`,
      async run(run) {
        for (const cell of cells) {
          const good = await subject.runPolicy(subject.knownGood, cell);
          const actions = agentActions(good);
          const { cut } = await cutOf(subject, cell, actions);
          for (const target of [cell, { ...cell, seed: cell.seed + 1 }]) {
            await run.scope(
              `${cellName(cell)} cut ${cut} → reset to ${cellName(target)}`,
              async (s: Scope) => {
                const used = subject.create(cell);
                await used.reset({ task: subject.task(cell), seed: cell.seed, episodeId: OLD });
                await stepAll(used, actions.slice(0, cut));
                const targetTask = subject.task(target);
                const o1 = await used.reset({ task: targetTask, seed: target.seed, episodeId: NEW });
                const fresh = subject.create(target);
                const o2 = await fresh.reset({ task: targetTask, seed: target.seed, episodeId: NEW });
                const stale = inspect(used)
                  .pendingJobs()
                  .filter((j) => j.owner !== NEW);
                s.expect(stale.length === 0, () => `${stale.length} job(s) of the old episode survive reset`);
                s.expect(
                  inspect(used).stateHash() === inspect(fresh).stateHash(),
                  "the state hash differs from a fresh instance's",
                );
                s.equal(jobsView(used), jobsView(fresh), "pending jobs differ from a fresh instance's");
                s.equal(o1, o2, "the reset observation differs from a fresh instance's");
                s.expect(inspect(used).leakedJobs() === 0, "leaked jobs after reset");
                const next = agentActions(await subject.runPolicy(subject.knownGood, target));
                const r1 = await stepAll(used, next);
                const r2 = await stepAll(fresh, next);
                s.sameSteps(
                  r1.map(stepDigest),
                  r2.map(stepDigest),
                  "the next episode differs from a fresh instance's",
                );
                s.equal(verdictOf(used), verdictOf(fresh), "the verdicts differ");
                s.expect(inspect(used).leakedJobs() === 0, "a job of the old episode fired in the new one");
                await subject.release(used);
                await subject.release(fresh);
              },
            );
          }
        }
      },
    };
  });
  if (subject.expectBackgroundJobs) {
    const reason = noInspection ?? noGood;
    checks.push({
      name: "reset: some mid-episode reset has background jobs pending",
      kind: "reset",
      ...(reason ? { notCheckable: reason } : {}),
      covers: "a known-good episode with jobs pending mid-way",
      async run(run) {
        for (const family of subject.families) {
          for (const cell of subject.cells(family.name, subject.seeds.slice(0, 1))) {
            const actions = agentActions(await subject.runPolicy(subject.knownGood, cell));
            if ((await cutOf(subject, cell, actions)).jobs) return;
          }
        }
        run.record(
          "expectBackgroundJobs: no known-good episode of the selected tasks has jobs pending mid-way, so no reset above cancelled any",
        );
      },
    });
  }
  return checks;
}
