import { performance } from "node:perf_hooks";
import type { Outcome, Task, TrialRecord, TrialSpec } from "../core/contracts.ts";
import type { Fault } from "../core/errors.ts";
import { cloneJson } from "../core/json.ts";
import { episodeIdOf } from "./episode-info.ts";
import { trajectoryHash } from "./trajectory-hash.ts";
import type { TrialState } from "./trial-state.ts";

/**
 * The finish of a trial: counts its agent steps and wall time, tells the agent how it ended (`end()`;
 * a failing cleanup changes nothing) and returns its record. `t0` is the `performance.now()` it began.
 */
export async function finishTrial(t: TrialState, startedAt: string, t0: number): Promise<TrialRecord> {
  const { spec, steps, stats, outcome, verdict, initial } = t;
  let agentSteps = 0;
  for (const s of steps) if (!s.setup) agentSteps++;
  stats.steps = agentSteps;
  stats.wallMs = performance.now() - t0;
  const session = t.session;
  if (session?.end) {
    try {
      const last =
        steps.length > 0 && !steps[steps.length - 1].setup ? steps[steps.length - 1].observation : undefined;
      // copies: what the agent does to them changes nothing in the record
      await session.end({
        episodeId: episodeIdOf(spec),
        outcome,
        ...(verdict ? { verdict: cloneJson(verdict) } : {}),
        ...(last ? { last: cloneJson(last) } : {}),
      });
    } catch {
      // an agent's cleanup failure does not change what happened in the trial
    }
  }
  return {
    schemaVersion: 1,
    spec,
    task: t.task ?? placeholderTask(spec),
    outcome,
    reason: t.reason,
    ...(t.fault ? { fault: t.fault } : {}),
    ...(verdict ? { verdict } : {}),
    ...(initial ? { initial } : {}),
    steps,
    stats,
    trajectoryHash: trajectoryHash(initial, steps, outcome, verdict),
    ...(initial !== undefined ? { isolation: { cleanStart: t.cleanStart, afterEnd: t.afterEnd } } : {}),
    startedAt,
    finishedAt: new Date().toISOString(),
  };
}

/** A task stand-in for a trial whose task could not even be generated. */
function placeholderTask(spec: TrialSpec): Task {
  return {
    id: `${spec.world}/${spec.family}/d${spec.difficulty}/s${spec.seed}`,
    world: spec.world,
    family: spec.family,
    difficulty: spec.difficulty,
    tags: [],
    params: {},
    split: spec.split ?? "regression",
    seed: spec.seed,
    instruction: "",
    generator: { template: "", ranges: {}, contentHash: "" },
  };
}

/** A record for a planned trial that ended before its world was built (it still counts). */
export function unranRecord(spec: TrialSpec, outcome: Outcome, reason: string, fault?: Fault): TrialRecord {
  const now = new Date().toISOString();
  return {
    schemaVersion: 1,
    spec,
    task: placeholderTask(spec),
    outcome,
    reason,
    ...(fault ? { fault } : {}),
    steps: [],
    stats: { steps: 0, virtualSeconds: 0, wallMs: 0, tokensIn: 0, tokensOut: 0, costUsd: 0 },
    trajectoryHash: "",
    startedAt: now,
    finishedAt: now,
  };
}
