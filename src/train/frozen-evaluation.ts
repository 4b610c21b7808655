import type { TaskRequest } from "../core/contracts.ts";
import type { WorldDefinition } from "../core/registry.ts";
import { Learner } from "../learners/learner.ts";
import type { LearnerPolicy } from "../learners/policy.ts";
import { type EpisodeParts, type PlayOptions, playEpisodes } from "./episodes.ts";
import type { TrainSplit } from "./transfer-split.ts";

/** Passes of one family's tasks. */
export interface FamilyScore {
  family: string;
  passed: number;
  trials: number;
}

/** Passes on one split, in all and per family (in the order the tasks list them). */
export interface SplitScore {
  passed: number;
  trials: number;
  rate: number;
  families: FamilyScore[];
}

/** What a frozen evaluation found on the two splits, and the experiment its trials were recorded under. */
export interface FrozenEvaluation {
  experimentId: string;
  policyHash: string;
  regression: SplitScore;
  heldout: SplitScore;
}

/** Scores of `requests` from their outcomes (same order). */
export function splitScore(requests: readonly TaskRequest[], outcomes: readonly string[]): SplitScore {
  const families = new Map<string, FamilyScore>();
  let passed = 0;
  requests.forEach((r, i) => {
    const f = families.get(r.family) ?? { family: r.family, passed: 0, trials: 0 };
    f.trials++;
    if (outcomes[i] === "passed") {
      f.passed++;
      passed++;
    }
    families.set(r.family, f);
  });
  return {
    passed,
    trials: requests.length,
    rate: requests.length ? passed / requests.length : 0,
    families: [...families.values()],
  };
}

/**
 * Plays the regression and held-out tasks of `split` on the UNMODIFIED world (no variant, whatever
 * the learner trained on) with a frozen copy of `policy` (greedy, never updated), through the runner's
 * pipeline, in one experiment (`options.experimentId`, each trial labelled with its split).
 */
export async function evaluateFrozen(
  parts: EpisodeParts,
  world: WorldDefinition,
  policy: LearnerPolicy,
  split: Pick<TrainSplit, "regression" | "heldout">,
  options: PlayOptions & { experimentId: string },
): Promise<FrozenEvaluation> {
  const frozen = Learner.restore(policy, { frozen: true });
  const requests = [...split.regression, ...split.heldout];
  const outcomes = await playEpisodes(parts, world, frozen, requests, options);
  const n = split.regression.length;
  return {
    experimentId: options.experimentId,
    policyHash: policy.hash,
    regression: splitScore(split.regression, outcomes.slice(0, n)),
    heldout: splitScore(split.heldout, outcomes.slice(n)),
  };
}
