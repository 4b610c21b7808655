import type { TrialRecord } from "../core/contracts.ts";
import type { VariantSpec } from "../harness/variant.ts";
import { wilson } from "../stats/wilson.ts";
import type { Rollouts } from "./rollouts.ts";
import { type BandRule, bandPosition, DEFAULT_BAND_RULE } from "./sequential-interval.ts";
import type { Decision, ValidationResult } from "./types.ts";

/** How a candidate is validated: the band rule, and how many rollouts a batch and a candidate take. */
export interface ValidationPlan extends BandRule {
  /** Rollouts before the first judgement (default 8). */
  minTrials: number;
  /** Rollouts added per further judgement (default 4). */
  batch: number;
  /** Most target rollouts for one candidate (default 24). */
  maxTrials: number;
}

export const DEFAULT_VALIDATION_PLAN: ValidationPlan = {
  ...DEFAULT_BAND_RULE,
  minTrials: 8,
  batch: 4,
  maxTrials: 24,
};

/** The tasks a candidate is validated on, and the base world's pass counts on them (from the baseline). */
export interface ValidationTasks {
  families: string[];
  difficulties: number[];
  base: { trials: number; passed: number };
}

export interface CandidateValidation {
  validation: ValidationResult;
  decision: Decision;
  reason: string;
  /** Target rollouts this validation used. */
  targetRollouts: number;
  knownGoodRollouts: number;
  /** The experiments the rollouts were recorded under. */
  experiments: string[];
  /** Target trials, for the report's evidence links. */
  trialIds: string[];
  /** Which way the intensity should move on REFINE: harder (rate above the band) or easier. */
  direction?: "harder" | "easier";
}

export interface ValidateOptions {
  /** Experiment id prefix of the batches. */
  id: string;
  variant: VariantSpec;
  tasks: ValidationTasks;
  rollouts: Rollouts;
  plan?: ValidationPlan;
  /** Target rollouts left in this weakness's budget. */
  remaining: number;
  /** First seed of the validation tasks (fresh: not the baseline's). */
  seed?: number;
  /** May the rigger still refine this candidate (it has a knob with room left)? */
  refinable: boolean;
}

const passedCount = (rs: readonly TrialRecord[]) => rs.filter((r) => r.outcome === "passed").length;

/**
 * Validates one candidate with fresh rollouts, sequentially: batches of the target on the variant and
 * of the known-good policy on the same tasks, judged after each batch by the band rule. Decides
 * REJECT when the known-good policy fails a rollout (unsolvable) or the verifier id changed; ACCEPT
 * when the target's rate is clearly inside the band and differs from the base world's; REFINE (when
 * refinable) or REJECT when it is outside or still undecided at the limit.
 */
export async function validateCandidate(o: ValidateOptions): Promise<CandidateValidation> {
  const plan = o.plan ?? DEFAULT_VALIDATION_PLAN;
  const verifier = o.rollouts.world.verifier;
  const cells = Math.max(1, o.tasks.families.length * o.tasks.difficulties.length);
  const limit = Math.min(plan.maxTrials, o.remaining);
  const target: TrialRecord[] = [];
  const good: TrialRecord[] = [];
  const experiments: string[] = [];
  let seed = o.seed ?? 1000;
  let stop: ValidationResult["stop"] = "undecided";
  let verifierUnchanged = true;
  let judged = bandPosition(0, 0, plan);
  for (let round = 0; target.length < limit; round++) {
    const want = Math.min(round === 0 ? plan.minTrials : plan.batch, limit - target.length);
    const trials = Math.max(1, Math.floor(want / cells));
    if (trials * cells > limit - target.length) break;
    const base = {
      families: o.tasks.families,
      difficulties: o.tasks.difficulties,
      trials,
      seed,
      variant: o.variant,
    };
    const tId = `${o.id}-r${round}-target`;
    const gId = `${o.id}-r${round}-known-good`;
    experiments.push(tId, gId);
    const [t, g] = [
      await o.rollouts.run({ ...base, id: tId, player: "target" }),
      await o.rollouts.run({ ...base, id: gId, player: "known_good" }),
    ];
    seed += trials;
    target.push(...t);
    good.push(...g);
    if ([...t, ...g].some((r) => r.verdict && r.verdict.verifier !== verifier)) {
      verifierUnchanged = false;
      break;
    }
    if (passedCount(g) < g.length) {
      stop = "unsolvable";
      break;
    }
    judged = bandPosition(passedCount(target), target.length, plan);
    if (target.length >= plan.minTrials && judged.position !== "undecided") {
      stop = judged.position;
      break;
    }
  }
  judged = bandPosition(passedCount(target), target.length, plan);
  const base = o.tasks.base;
  const baseRate = base.trials ? base.passed / base.trials : undefined;
  const baseCi = base.trials ? wilson(base.passed, base.trials, plan.confidence) : undefined;
  const changesOutcomes =
    baseRate !== undefined &&
    baseCi !== undefined &&
    (baseRate < judged.ci[0] ||
      baseRate > judged.ci[1] ||
      judged.rate < baseCi.lo ||
      judged.rate > baseCi.hi);
  const validation: ValidationResult = {
    target: { trials: target.length, passed: passedCount(target), rate: judged.rate, ci: judged.ci },
    knownGood: { trials: good.length, passed: passedCount(good) },
    verifierUnchanged,
    changesOutcomes,
    stop,
  };
  const fmt = (x: number) => x.toFixed(2);
  const interval = `rate ${fmt(judged.rate)} (${validation.target.passed}/${validation.target.trials}), ${Math.round(plan.confidence * 100)}% CI [${fmt(judged.ci[0])}, ${fmt(judged.ci[1])}] vs band [${plan.band.join(", ")}]`;
  const out = (decision: Decision, reason: string, direction?: "harder" | "easier"): CandidateValidation => ({
    validation,
    decision,
    reason,
    targetRollouts: target.length,
    knownGoodRollouts: good.length,
    experiments,
    trialIds: target.map((r) => r.spec.id),
    ...(direction ? { direction } : {}),
  });
  if (!verifierUnchanged) return out("REJECT", "the variant's trials were judged by another verifier");
  if (stop === "unsolvable") {
    return out(
      "REJECT",
      `unsolvable: the known-good policy failed ${good.length - passedCount(good)} of ${good.length} validation rollouts`,
    );
  }
  if (stop === "inside") {
    if (!changesOutcomes) {
      return out(
        "REJECT",
        `${interval}: inside, but no different from the base world (${base.passed}/${base.trials} on the same families)`,
      );
    }
    return out(
      "ACCEPT",
      `${interval}: inside (the interval lies within [${fmt(plan.band[0] - plan.slack)}, ${fmt(plan.band[1] + plan.slack)}]); the base world passes ${base.passed}/${base.trials}`,
    );
  }
  const direction = judged.rate > plan.band[1] ? "harder" : judged.rate < plan.band[0] ? "easier" : undefined;
  const where = stop === "outside" ? "outside the band" : `undecided after ${target.length} rollouts`;
  if (o.refinable && direction)
    return out("REFINE", `${interval}: ${where}; make it ${direction}`, direction);
  return out("REJECT", `${interval}: ${where}${direction ? ", and nothing left to tune" : ""}`);
}
