/** What `proving learn` measured: the three arms side by side, per evaluation set, with paired tests. */

import type { VariantSpec } from "../harness/variant.ts";
import type { PairedComparison } from "../stats/compare-paired.ts";
import type { IntervalEstimate } from "../stats/interval-estimate.ts";

export type Arm = "none" | "original" | "variants";
export const ARMS: readonly Arm[] = ["none", "original", "variants"];
export const ARM_LABELS: Record<Arm, string> = {
  none: "no skills",
  original: "(a) skills from the original worlds",
  variants: "(b) skills from accepted variants",
};

export interface ArmRate {
  passed: number;
  planned: number;
  /** Pass rate over planned trials with its Wilson interval. */
  rate: IntervalEstimate;
}

export interface EvaluationSet {
  name: "unmodified" | "heldout";
  families: string[];
  arms: Record<Arm, ArmRate>;
  /** A − B for each pair: variants − none, original − none, variants − original. */
  comparisons: {
    variantsVsNone: PairedComparison;
    originalVsNone: PairedComparison;
    variantsVsOriginal: PairedComparison;
  };
}

export interface InductionArm {
  experimentId: string;
  /** Trials the inducer read (matched between the arms). */
  trials: number;
  variants: string[];
  bank: string;
  skills: { id: string; title: string; support: number; directive?: string }[];
}

export interface LearnResult {
  schemaVersion: 1;
  id: string;
  world: string;
  inducer: string;
  settings: {
    inductionTrials: number;
    inductionDifficulties: number[];
    evalDifficulties: number[];
    evalTrials: number;
    trainFamilies: string[];
    heldoutFamilies: string[];
    variants: VariantSpec[];
    k: number;
    minSupport: number;
    seed: number;
    inductionSeed: number;
    confidence: number;
  };
  induction: { original: InductionArm; variants: InductionArm };
  evaluation: { experimentId: string; sets: EvaluationSet[] };
}
