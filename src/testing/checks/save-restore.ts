import type { Action, StepResult } from "../../core/contracts.ts";
import { hashJson } from "../../core/hash.ts";
import type { JsonValue } from "../../core/json.ts";
import type { Scope } from "../check-run.ts";
import {
  agentActions,
  jobsView,
  randomWalk,
  replay,
  rngFor,
  stepAll,
  stepDigest,
  verdictOf,
} from "../episodes.ts";
import { type Cell, cellName, type Subject } from "../subject.ts";
import { type CheckPlan, noCells, type PlannedCheck } from "./planned-check.ts";

/** Saves along one episode (at most this many cuts). */
const MAX_CUTS = 40;
const WALK_STEPS = 30;
const EPISODE = "save";

/**
 * Saves one episode at every step (every few steps past MAX_CUTS), restores each saved state (after a
 * JSON round trip) and continues it: the restored instance must have the state hash, pending jobs and
 * observation of the original, and finish with the results, verdict and final state of an unsaved run;
 * continuing must not change the saved data (aliasing); saving must not change the original's course.
 */
async function saveAlong(s: Scope, subject: Subject, cell: Cell, actions: readonly Action[]): Promise<void> {
  const ref = await replay(subject, cell, actions, EPISODE);
  const n = ref.results.length;
  const acts = actions.slice(0, n);
  const stride = Math.max(1, Math.ceil(n / MAX_CUTS));
  const original = subject.create(cell);
  await original.reset({ task: subject.task(cell), seed: cell.seed, episodeId: EPISODE });
  const inspect = original.capabilities.inspection;
  const went: StepResult[] = [];
  let saved: { data: JsonValue; frozen: string; cut: number } | undefined;
  const unchanged = () => {
    if (saved)
      s.expect(
        hashJson(saved.data) === saved.frozen,
        `cut ${saved.cut}: continuing the episode changed the saved state (aliasing)`,
      );
  };
  for (let cut = 0; cut < n; cut += stride) {
    went.push(...(await stepAll(original, acts.slice(went.length, cut))));
    unchanged();
    await s.at(`cut ${cut}`, async (c: Scope) => {
      const data = subject.restorer!.save(original);
      const frozen = hashJson(data);
      saved = { data, frozen, cut };
      const wire = JSON.parse(JSON.stringify(data)) as JsonValue;
      c.equal(wire, data, "the saved state is not plain JSON data");
      const restored = subject.restore(wire);
      c.must(restored.spec.id === original.spec.id, `restored ${restored.spec.id}, not ${original.spec.id}`);
      const inspectRestored = restored.capabilities.inspection;
      if (inspect) {
        if (!inspectRestored) return c.fail("the restored instance declares no inspection");
        c.expect(inspectRestored.stateHash() === inspect.stateHash(), "state hash differs after restore");
        c.equal(jobsView(restored), jobsView(original), "pending jobs differ after restore");
      }
      c.equal(restored.observe(), original.observe(), "observe() differs after restore");
      const rest = await stepAll(restored, acts.slice(cut));
      c.sameSteps(
        rest.map(stepDigest),
        ref.results.slice(cut).map(stepDigest),
        "the remaining results differ from an unsaved run's",
      );
      c.equal(verdictOf(restored), ref.verdict, "the verdict differs from an unsaved run's");
      if (inspectRestored && ref.endHash !== undefined)
        c.expect(
          inspectRestored.stateHash() === ref.endHash,
          "the final state hash differs from an unsaved run's",
        );
      c.expect(
        hashJson(data) === frozen,
        "continuing the restored episode changed the saved state (aliasing)",
      );
      await subject.release(restored);
    });
  }
  went.push(...(await stepAll(original, acts.slice(went.length))));
  unchanged();
  s.sameSteps(
    went.map(stepDigest),
    ref.results.map(stepDigest),
    "the instance saved along the way went differently from an unsaved run (saving changed it)",
  );
  await subject.release(original);
}

/** Save/restore, per family: at the lowest and highest selected difficulty, known-good and random-walk episodes. */
export function saveRestoreChecks(plan: CheckPlan): PlannedCheck[] {
  const { subject } = plan;
  const noGood = subject.knownGoodProblem();
  const noRestore = subject.restorer
    ? undefined
    : "no way to restore a saved state: give options.restore (a Registry, or a function of saveState() data)";
  return subject.families.map((family) => {
    const difficulties = subject.difficultiesOf(family.name);
    const chosen = [...new Set([difficulties[0], difficulties[difficulties.length - 1]])].filter(
      (d) => d !== undefined,
    );
    const reason = noRestore ?? noGood ?? noCells(plan, family.name);
    return {
      name: `save/restore: ${family.name}: restore at any step and continue → identical results`,
      kind: "save-restore",
      ...(reason ? { notCheckable: reason } : {}),
      covers:
        `d${chosen.join(", d")} seed ${subject.seeds[0]}: ${subject.knownGood} and a random walk, saved at every step` +
        (plan.capabilities.inspection ? "" : " (state hash and jobs not compared: no inspection)"),
      async run(run) {
        for (const difficulty of chosen) {
          const cell = { family: family.name, difficulty, seed: subject.seeds[0] };
          const good = await subject.runPolicy(subject.knownGood, cell);
          const walk = await randomWalk(subject, cell, rngFor("save", cell), WALK_STEPS);
          for (const [label, actions] of [
            ["known-good", agentActions(good)],
            ["random walk", walk],
          ] as const) {
            await run.scope(`${cellName(cell)} ${label}`, (s) => saveAlong(s, subject, cell, actions));
          }
        }
      },
    };
  });
}
