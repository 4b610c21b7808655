/**
 * Experiment 2 of issue 25, EnvHarness transfer: does training on the rigger's variants of a world,
 * besides the world itself, make a learner better on the UNMODIFIED world? Per seed, one learner is
 * warmed up on the base world; its policy is then copied into two arms trained with the same number
 * of further episodes on the same task stream: (a) `base`, every episode on the base world; (b)
 * `variants`, a share of the episodes (default every other one) on the variants, round-robin, the
 * rest on the base world (with `poolVariants`, the variants of every seed's warm learner). Both arms
 * (and the warm-up policy) are evaluated frozen on the unmodified
 * world's regression and held-out splits; the arms are compared paired by seed, with a nested cluster
 * bootstrap over seeds and the families within them.
 */
import type { JsonValue } from "../core/json.ts";
import type { WorldDefinition } from "../core/registry.ts";
import { Rng } from "../core/rng.ts";
import { Learner } from "../learners/learner.ts";
import type { LearnerPolicy } from "../learners/policy.ts";
import type { IntervalEstimate } from "../stats/interval-estimate.ts";
import { type PairedCell, pairedClusterBootstrap } from "../stats/paired-cluster-bootstrap.ts";
import { type EpisodeRequest, playEpisodes } from "./episodes.ts";
import { newLearner, type TrainExperimentOptions, type TrainExperimentPorts } from "./experiment-options.ts";
import { evaluateFrozen, type FrozenEvaluation, type SplitScore } from "./frozen-evaluation.ts";
import type { TrainSplit } from "./transfer-split.ts";

/** A variant an arm trains on: its spec, the id the harness gives it, and the weakness it exercises. */
export interface TrainingVariant {
  variant: JsonValue;
  variantId: string;
  pattern?: string;
}

/** Where a seed's variants came from (the rigger's run on the warm learner, a file, the store). */
export interface VariantSource {
  source: string;
  variants: TrainingVariant[];
  /** What the source reports of itself (e.g. the rig's diagnoses and decisions), as data. */
  detail?: JsonValue;
}

export interface TransferOptions extends TrainExperimentOptions {
  /** Training episodes per arm, warm-up included. */
  episodes: number;
  /** Warm-up episodes on the base world, shared by both arms (before the variants are chosen). */
  warmup: number;
  /** Share of the post-warm-up episodes of arm (b) played on variants (default 0.5). */
  variantShare?: number;
  /** Every seed's arm (b) trains on the variants of all seeds (default: each on its own seed's). */
  poolVariants?: boolean;
}

export interface TransferPorts extends TrainExperimentPorts {
  /** The variants of one seed, given a frozen copy of its warm learner. */
  variants(seed: number, warm: Learner, warmPolicy: LearnerPolicy): Promise<VariantSource>;
}

export type TransferArm = "base" | "variants";

export interface ArmRun {
  arm: TransferArm;
  /** Episodes after the warm-up on the base world and on variants. */
  episodes: { base: number; variant: number };
  /** The variants arm (b) trained on (ids). */
  variants?: string[];
  trainPassRate: number;
  evaluation: FrozenEvaluation;
}

export interface TransferSeed {
  seed: number;
  warm: FrozenEvaluation;
  variantSource: VariantSource;
  arms: ArmRun[];
}

/** One arm's mean over seeds (pooled tasks) with a cluster-bootstrap interval. */
export interface ArmSummary {
  arm: TransferArm | "warm";
  regression: IntervalEstimate;
  heldout: IntervalEstimate;
}

export interface TransferResult {
  schemaVersion: 1;
  kind: "train.transfer";
  id: string;
  world: string;
  learner: string;
  episodes: number;
  warmup: number;
  variantShare: number;
  poolVariants: boolean;
  seeds: number[];
  split: Omit<TrainSplit, "regression" | "heldout"> & { regressionTasks: number; heldoutTasks: number };
  perSeed: TransferSeed[];
  arms: ArmSummary[];
  /** variants − base, paired by seed (nested bootstrap: seeds, then families within). */
  difference: { regression: IntervalEstimate; heldout: IntervalEstimate };
  /** Seeds whose arm (b) had at least one variant to train on. */
  seedsWithVariants: number;
  /** Distinct variants accepted over all seeds. */
  distinctVariants: number;
}

/** Tasks drawn uniformly over `families` (of `world`), their difficulties, seeds in [1, 1e6]. */
function drawTasks(
  world: WorldDefinition,
  families: readonly string[],
  n: number,
  rng: Rng,
): EpisodeRequest[] {
  const pool = world.families.filter((f) => families.includes(f.name));
  return Array.from({ length: n }, () => {
    const f = rng.pick(pool);
    return {
      family: f.name,
      difficulty: rng.pick(f.difficulties),
      seed: rng.int(1, 1_000_000),
      split: "dynamic" as const,
    };
  });
}

/**
 * The schedule of arm (b): episode i is on a variant when ⌊(i+1)·share⌋ > ⌊i·share⌋ (share 0.5: every
 * other episode, starting with the second), the variants taken round-robin; the task is the same as arm
 * (a)'s i-th. Without variants it is arm (a)'s schedule.
 */
export function variantSchedule(
  tasks: readonly EpisodeRequest[],
  variants: readonly TrainingVariant[],
  share: number,
): EpisodeRequest[] {
  if (variants.length === 0 || share <= 0) return [...tasks];
  let k = 0;
  return tasks.map((t, i) => {
    if (Math.floor((i + 1) * share) <= Math.floor(i * share)) return t;
    const v = variants[k++ % variants.length];
    return { ...t, variant: v.variant, variantId: v.variantId };
  });
}

const cellsOf = (
  pick: (s: TransferSeed) => { a: SplitScore; b: SplitScore },
  seeds: readonly TransferSeed[],
): PairedCell[] =>
  seeds.flatMap((s) => {
    const { a, b } = pick(s);
    return a.families.map((fa) => {
      const fb = b.families.find((f) => f.family === fa.family) ?? fa;
      return {
        outer: String(s.seed),
        inner: fa.family,
        a: fa.trials ? fa.passed / fa.trials : 0,
        b: fb.trials ? fb.passed / fb.trials : 0,
        weight: fa.trials,
      };
    });
  });

/** The interval of a mean pass rate over seeds and families (the bootstrap of b − 0). */
function rateInterval(
  seeds: readonly TransferSeed[],
  pick: (s: TransferSeed) => SplitScore,
): IntervalEstimate {
  const zero = (s: SplitScore): SplitScore => ({
    ...s,
    passed: 0,
    rate: 0,
    families: s.families.map((f) => ({ ...f, passed: 0 })),
  });
  const cells = cellsOf((s) => ({ a: zero(pick(s)), b: pick(s) }), seeds);
  return cells.length ? pairedClusterBootstrap(cells) : { estimate: 0, lo: 0, hi: 0 };
}

function difference(seeds: readonly TransferSeed[], split: "regression" | "heldout"): IntervalEstimate {
  const cells = cellsOf((s) => {
    const [a, b] = s.arms;
    return { a: a.evaluation[split], b: b.evaluation[split] };
  }, seeds);
  return cells.length ? pairedClusterBootstrap(cells) : { estimate: 0, lo: 0, hi: 0 };
}

/** Runs the transfer experiment (see the module's comment); deterministic given the seeds and ports. */
export async function runTransfer(o: TransferOptions, ports: TransferPorts): Promise<TransferResult> {
  const say = ports.onEvent ?? (() => {});
  const share = o.variantShare ?? 0.5;
  const warmup = Math.min(o.warmup, o.episodes);
  const play = (experimentId: string) => ({
    experimentId,
    ...(o.maxSteps !== undefined ? { maxSteps: o.maxSteps } : {}),
  });
  const evaluate = (policy: LearnerPolicy, experimentId: string) =>
    evaluateFrozen(ports.parts, o.world, policy, o.split, {
      ...play(experimentId),
      ...(ports.recorder ? { recorder: ports.recorder(experimentId) } : {}),
    });
  // phase 1, per seed: the warm-up, its evaluation, and the variants the source gives for it
  const warmed: { seed: number; policy: LearnerPolicy; warm: FrozenEvaluation; source: VariantSource }[] = [];
  for (const seed of o.seeds) {
    const learner = newLearner(o.learner, seed);
    const warmTasks = drawTasks(o.world, o.split.trainFamilies, warmup, Rng.seeded(seed, "transfer/warmup"));
    await playEpisodes(ports.parts, o.world, learner, warmTasks, play(`${o.id}-s${seed}-warmup`));
    const policy = learner.policy();
    const warm = await evaluate(policy, `${o.id}-s${seed}-warm-eval`);
    say(
      `seed ${seed}: warm-up ${warmup} episodes: regression ${warm.regression.passed}/${warm.regression.trials}, held-out ${warm.heldout.passed}/${warm.heldout.trials}`,
    );
    const source = await ports.variants(seed, Learner.restore(policy, { frozen: true }), policy);
    say(`seed ${seed}: ${source.variants.length} variant(s) from ${source.source}`);
    warmed.push({ seed, policy, warm, source });
  }
  // pooled: every seed's arm (b) trains on the variants of all seeds (first seen first)
  const pooled = new Map<string, TrainingVariant>();
  for (const w of warmed)
    for (const v of w.source.variants) if (!pooled.has(v.variantId)) pooled.set(v.variantId, v);
  // phase 2, per seed: the two arms from the warm policy, on the same task stream
  const perSeed: TransferSeed[] = [];
  for (const { seed, policy: warmPolicy, warm, source: variantSource } of warmed) {
    const variants = o.poolVariants ? [...pooled.values()] : variantSource.variants;
    const tasks = drawTasks(
      o.world,
      o.split.trainFamilies,
      o.episodes - warmup,
      Rng.seeded(seed, "transfer/tasks"),
    );
    const arms: ArmRun[] = [];
    for (const arm of ["base", "variants"] as const) {
      const schedule = arm === "base" ? tasks : variantSchedule(tasks, variants, share);
      const trainee = Learner.restore(warmPolicy);
      const outcomes = await playEpisodes(
        ports.parts,
        o.world,
        trainee,
        schedule,
        play(`${o.id}-s${seed}-${arm}-train`),
      );
      const onVariant = schedule.filter((t) => t.variant !== undefined).length;
      const evaluation = await evaluate(trainee.policy(), `${o.id}-s${seed}-${arm}-eval`);
      arms.push({
        arm,
        episodes: { base: schedule.length - onVariant, variant: onVariant },
        ...(arm === "variants" ? { variants: variants.map((v) => v.variantId) } : {}),
        trainPassRate: outcomes.length ? outcomes.filter((x) => x === "passed").length / outcomes.length : 0,
        evaluation,
      });
      say(
        `seed ${seed}: arm ${arm}: regression ${evaluation.regression.passed}/${evaluation.regression.trials}, held-out ${evaluation.heldout.passed}/${evaluation.heldout.trials}`,
      );
    }
    perSeed.push({ seed, warm, variantSource, arms });
  }
  const { regression, heldout, ...splitRest } = o.split;
  return {
    schemaVersion: 1,
    kind: "train.transfer",
    id: o.id,
    world: o.world.id,
    learner: o.learner === "q" ? "learner.q@1" : "learner.pg@1",
    episodes: o.episodes,
    warmup,
    variantShare: share,
    poolVariants: !!o.poolVariants,
    seeds: [...o.seeds],
    split: { ...splitRest, regressionTasks: regression.length, heldoutTasks: heldout.length },
    perSeed,
    arms: [
      {
        arm: "warm",
        regression: rateInterval(perSeed, (s) => s.warm.regression),
        heldout: rateInterval(perSeed, (s) => s.warm.heldout),
      },
      ...(["base", "variants"] as const).map((arm, i) => ({
        arm,
        regression: rateInterval(perSeed, (s) => s.arms[i].evaluation.regression),
        heldout: rateInterval(perSeed, (s) => s.arms[i].evaluation.heldout),
      })),
    ],
    difference: { regression: difference(perSeed, "regression"), heldout: difference(perSeed, "heldout") },
    seedsWithVariants: perSeed.filter((s) => (s.arms[1].variants?.length ?? 0) > 0).length,
    distinctVariants: pooled.size,
  };
}
