/**
 * The rigger pointed at a frozen reference learner, for `proving train transfer` and `proving train
 * rig` (the train area takes the rigger as a port; the CLI composes them). The learner plays through
 * the gym's runner as the rig's target (`gymRollouts`), the offline template designer proposes: no
 * LLM is needed. Every rollout is an experiment in the store (`<rig id>-baseline`, ...). Loaded when
 * one of those commands runs.
 */
import type { ResolvedAgent } from "../../agents/resolve.ts";
import type { JsonValue } from "../../core/json.ts";
import type { Gym } from "../../gym/gym.ts";
import type { Learner } from "../../learners/learner.ts";
import { type RigResult, rig } from "../../rigger/rig.ts";
import { gymRollouts } from "../../rigger/rollouts.ts";
import { templateDesigner } from "../../rigger/template-designer.ts";
import type { Store } from "../../store/store.ts";
import type { RigFinding, TrainingVariant } from "../../train/index.ts";

export interface LearnerRigOptions {
  gym: Gym;
  world: string;
  store?: Store;
  /** Target validation rollouts per weakness (the rig's default 50). */
  budgetPerWeakness?: number;
  /** Baseline seeds per family × difficulty (the rig's default 2). */
  baselineTrials?: number;
  /** Families of the baseline (default: every family of the world). */
  families?: string[];
  maxSteps?: number;
  onEvent?: (message: string) => void;
}

/** Runs the rigger (template designer, rule diagnoses) against `frozen`, its experiments under `rigId`. */
export async function rigLearner(o: LearnerRigOptions, frozen: Learner, rigId: string): Promise<RigResult> {
  const spec = frozen.id === "learner.q@1" ? "learner:q" : "learner:pg";
  const target: ResolvedAgent = {
    ref: { id: `${frozen.id}#${rigId}`, kind: "learner", spec },
    forWorld: () => frozen,
    // one trial at a time, in manifest order: the same rollouts in every run
    ordered: true,
  };
  const rollouts = await gymRollouts(o.gym.runOptions(), {
    world: o.world,
    target,
    ...(o.store ? { store: o.store } : {}),
    ...(o.maxSteps !== undefined ? { budget: { maxSteps: o.maxSteps } } : {}),
  });
  return rig({
    id: rigId,
    rollouts,
    designer: templateDesigner(),
    ...(o.budgetPerWeakness !== undefined ? { budgetPerWeakness: o.budgetPerWeakness } : {}),
    baseline: {
      ...(o.baselineTrials !== undefined ? { trials: o.baselineTrials } : {}),
      ...(o.families?.length ? { families: o.families } : {}),
    },
    layers: o.gym.harness.layers(),
    ...(o.onEvent ? { onEvent: o.onEvent } : {}),
  });
}

/** The accepted variants of a rig run, as an arm trains on them (the harness's variant id). */
export function acceptedVariants(r: RigResult): TrainingVariant[] {
  return r.candidates
    .filter((c) => c.decision === "ACCEPT")
    .map((c) => ({ variant: c.variant as unknown as JsonValue, variantId: c.variantId, pattern: c.pattern }));
}

/** What `proving train rig` keeps of a rig run: the named weaknesses with their support, the candidates. */
export function rigFinding(r: RigResult): RigFinding {
  return {
    rig: r.id,
    baseline: { trials: r.baseline.trials, passed: r.baseline.passed },
    diagnoses: r.diagnoses.map((d) => ({
      pattern: d.pattern,
      ...(typeof d.facts?.tool === "string" ? { tool: d.facts.tool } : {}),
      axis: d.axis,
      families: d.families,
      support: d.support ?? { trials: d.evidence.length, of: r.baseline.trials - r.baseline.passed },
    })),
    candidates: r.candidates.map((c) => ({
      variantId: c.variantId,
      pattern: c.pattern,
      decision: c.decision ?? "REJECT",
      ...(c.reason ? { reason: c.reason } : {}),
    })),
    accepted: r.accepted.length,
  };
}
