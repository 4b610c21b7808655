/**
 * What `proving learn` measured: the no-skill arm and the two skill arms (pooled over induction
 * seeds) side by side, per evaluation set, with intervals by family cluster.
 */

import type { VariantSpec } from "../harness/variant.ts";
import type { IntervalEstimate } from "../stats/interval-estimate.ts";
import type { SkillChannel } from "./arm-agent.ts";

export type Arm = "none" | "original" | "variants";
export const ARMS: readonly Arm[] = ["none", "original", "variants"];
export const ARM_LABELS: Record<Arm, string> = {
  none: "no skills",
  original: "(a) skills from the original world",
  variants: "(b) skills from accepted variants",
};

/** An interval from a bootstrap over family clusters (families resampled, each the mean of its trials). */
export interface ClusteredInterval extends IntervalEstimate {
  /** Families resampled: with fewer than 5 the interval says little. */
  clusters: number;
}

export interface ArmRate {
  /** Trials passed and planned, pooled over the induction seeds (a skill arm plays each seed's bank). */
  passed: number;
  planned: number;
  /** Mean of the families' pass rates, with its family-cluster bootstrap interval. */
  rate: ClusteredInterval;
}

/** A − B on the same tasks and seeds, each skill arm paired with the same induction seed's other arm. */
export interface ArmComparison {
  /** Mean over families of the family's mean difference, with the family-cluster bootstrap interval. */
  difference: ClusteredInterval;
  perFamily: { family: string; pairs: number; difference: number }[];
  perSeed: { seed: number; pairs: number; difference: number }[];
  /**
   * The per-pair view, for comparison only: a deterministic agent repeats itself on a task, so these
   * pairs are not independent and the Newcombe interval over them is too narrow.
   */
  perPair: {
    pairs: number;
    both_pass: number;
    a_only: number;
    b_only: number;
    neither: number;
    newcombe: [number, number];
  };
}

export interface EvaluationSet {
  name: "unmodified" | "heldout";
  families: string[];
  arms: Record<Arm, ArmRate>;
  /** A − B for each pair: variants − none, original − none, variants − original. */
  comparisons: {
    variantsVsNone: ArmComparison;
    originalVsNone: ArmComparison;
    variantsVsOriginal: ArmComparison;
  };
}

export interface InductionArm {
  seed: number;
  experimentId: string;
  /** Trials the inducer read (matched between the arms). */
  trials: number;
  variants: string[];
  bank: string;
  skills: { id: string; title: string; support: number }[];
}

export interface LearnResult {
  schemaVersion: 2;
  id: string;
  world: string;
  /** The agent that played every arm (`--agent`), and how it took its skills. */
  agent: { spec: string; channel: SkillChannel };
  inducer: string;
  settings: {
    inductionTrials: number;
    inductionDifficulties: number[];
    inductionSeeds: number[];
    evalDifficulties: number[];
    evalTrials: number;
    trainFamilies: string[];
    heldoutFamilies: string[];
    variants: VariantSpec[];
    k: number;
    minSupport: number;
    seed: number;
    confidence: number;
    bootstrapIterations: number;
  };
  /** One induction per seed and arm. */
  induction: { original: InductionArm[]; variants: InductionArm[] };
  evaluation: { experimentId: string; sets: EvaluationSet[] };
  /** What this run measures and what it does not, in words (the text output prints them). */
  measures: string[];
  doesNotMeasure: string[];
}
