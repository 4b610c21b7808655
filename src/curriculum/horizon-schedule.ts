import { configError } from "../core/errors.ts";

/** One stage of the interaction horizon: from episode `from` (0-based) on, at most `maxSteps` steps. */
export interface HorizonStage {
  from: number;
  maxSteps: number;
}

/**
 * The interaction-horizon schedule: the turn cap grows by stage, as in ScalingInter-RL (Xi et al. 2025,
 * AgentGym-RL: short horizons first, so early training exploits, then longer ones to explore).
 * Stages are sorted by `from`, the first starting at 0, caps non-decreasing.
 */
export function horizonSchedule(stages: readonly HorizonStage[]): (episode: number) => number {
  const sorted = [...stages].sort((a, b) => a.from - b.from);
  if (sorted.length === 0 || sorted[0].from !== 0) {
    throw configError("bad_sampler_option", "horizon schedule: the first stage must start at episode 0");
  }
  for (let i = 0; i < sorted.length; i++) {
    const s = sorted[i];
    if (!Number.isInteger(s.from) || !Number.isInteger(s.maxSteps) || s.maxSteps < 1) {
      throw configError(
        "bad_sampler_option",
        `horizon schedule: stage ${i} needs whole numbers from >= 0, maxSteps >= 1`,
      );
    }
    if (i > 0 && (s.from === sorted[i - 1].from || s.maxSteps < sorted[i - 1].maxSteps)) {
      throw configError(
        "bad_sampler_option",
        "horizon schedule: stages start at distinct episodes and never shrink the cap",
      );
    }
  }
  return (episode) => {
    let cap = sorted[0].maxSteps;
    for (const s of sorted) if (episode >= s.from) cap = s.maxSteps;
    return cap;
  };
}

/** Reads `--horizon 0:10,50:20,100:40` (episode:maxSteps pairs). */
export function parseHorizon(text: string): HorizonStage[] {
  return text.split(",").map((part) => {
    const m = /^\s*(\d+)\s*:\s*(\d+)\s*$/.exec(part);
    if (!m) throw configError("bad_sampler_option", `horizon: want EPISODE:MAXSTEPS pairs, got "${part}"`);
    return { from: Number(m[1]), maxSteps: Number(m[2]) };
  });
}
