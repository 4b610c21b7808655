/**
 * Experiment 3 of issue 25, rigging the learner: a learner trains on a world and, at each checkpoint,
 * a frozen copy of it is handed to the rigger (diagnosis from its rollouts, variant proposals and
 * their validation: a port, so this area needs no rigger) and evaluated frozen per family. The
 * summary answers from the data whether the weakness the rigger names changes as the learner
 * improves: the share of seeds whose top diagnosis changes between checkpoints.
 */
import type { JsonValue } from "../core/json.ts";
import { Rng } from "../core/rng.ts";
import { Learner } from "../learners/learner.ts";
import type { LearnerPolicy } from "../learners/policy.ts";
import { type EpisodeRequest, playEpisodes } from "./episodes.ts";
import { newLearner, type TrainExperimentOptions, type TrainExperimentPorts } from "./experiment-options.ts";
import { evaluateFrozen, type FrozenEvaluation } from "./frozen-evaluation.ts";

/** A weakness the rigger named: its pattern, the tool it is about, where it showed and its support. */
export interface NamedWeakness {
  pattern: string;
  tool?: string;
  axis?: string;
  families: string[];
  /** Failed trials showing it, of the failed trials analysed. */
  support: { trials: number; of: number };
}

/** What the rigger found on one frozen learner. */
export interface RigFinding {
  /** The rig run's id (its experiments are `<rig>-...` in the store). */
  rig: string;
  baseline: { trials: number; passed: number };
  /** Most supported first. */
  diagnoses: NamedWeakness[];
  candidates: { variantId: string; pattern: string; decision: string; reason?: string }[];
  accepted: number;
  detail?: JsonValue;
}

export interface RigCheckpointOptions extends TrainExperimentOptions {
  /** Training episodes at which the learner is frozen and rigged, ascending (e.g. 0, 500, 1000, 2000). */
  checkpoints: readonly number[];
}

export interface RigCheckpointPorts extends TrainExperimentPorts {
  /** Runs the rigger against a frozen copy of the learner (`rigId` is the id its experiments take). */
  rig(frozen: Learner, policy: LearnerPolicy, rigId: string): Promise<RigFinding>;
}

export interface RigCheckpoint {
  checkpoint: number;
  policyHash: string;
  evaluation: FrozenEvaluation;
  finding: RigFinding;
  /** The top diagnosis as `pattern` or `pattern:tool`; null when the rigger named none. */
  top: string | null;
}

/** How often the top diagnosis changed from one checkpoint to the next. */
export interface TopChange {
  from: number;
  to: number;
  /** Seeds compared (a diagnosis, or none, at both). */
  seeds: number;
  changed: number;
  share: number;
  /** Seeds with a weakness named at both checkpoints, and how many of those changed it. */
  named: number;
  changedNamed: number;
}

export interface RigCheckpointResult {
  schemaVersion: 1;
  kind: "train.rig";
  id: string;
  world: string;
  learner: string;
  checkpoints: number[];
  seeds: number[];
  split: {
    trainFamilies: string[];
    heldoutFamilies: string[];
    regressionTasks: number;
    heldoutTasks: number;
  };
  perSeed: { seed: number; checkpoints: RigCheckpoint[] }[];
  /** Per checkpoint: the top diagnoses' counts over seeds, and the mean regression pass rate. */
  byCheckpoint: {
    checkpoint: number;
    top: Record<string, number>;
    regressionRate: number;
    heldoutRate: number;
  }[];
  changes: TopChange[];
  /** Between the first and the last checkpoint. */
  overall: TopChange;
  answer: string;
}

/** `pattern` or `pattern:tool`. */
export const weaknessKey = (w: NamedWeakness): string => (w.tool ? `${w.pattern}:${w.tool}` : w.pattern);

/**
 * How many seeds' top diagnosis differs between checkpoints `i` and `j` (a weakness named vs none
 * counts as a change), and the same among the seeds with a weakness named at both.
 */
export function topChange(
  perSeed: readonly { checkpoints: readonly Pick<RigCheckpoint, "checkpoint" | "top">[] }[],
  i: number,
  j: number,
): TopChange {
  const pairs = perSeed.map((s) => [s.checkpoints[i], s.checkpoints[j]] as const).filter(([a, b]) => a && b);
  const changed = pairs.filter(([a, b]) => a.top !== b.top).length;
  const named = pairs.filter(([a, b]) => a.top !== null && b.top !== null);
  return {
    from: perSeed[0]?.checkpoints[i]?.checkpoint ?? 0,
    to: perSeed[0]?.checkpoints[j]?.checkpoint ?? 0,
    seeds: pairs.length,
    changed,
    share: pairs.length ? changed / pairs.length : 0,
    named: named.length,
    changedNamed: named.filter(([a, b]) => a.top !== b.top).length,
  };
}

const pct = (x: number) => `${Math.round(100 * x)}%`;

/** Trains and rigs the learner at each checkpoint, per seed (see the module's comment). Deterministic. */
export async function runRigCheckpoints(
  o: RigCheckpointOptions,
  ports: RigCheckpointPorts,
): Promise<RigCheckpointResult> {
  const say = ports.onEvent ?? (() => {});
  const checkpoints = [...o.checkpoints].sort((a, b) => a - b);
  const play = (experimentId: string) => ({
    experimentId,
    ...(o.maxSteps !== undefined ? { maxSteps: o.maxSteps } : {}),
  });
  const pool = o.world.families.filter((f) => o.split.trainFamilies.includes(f.name));
  const perSeed: RigCheckpointResult["perSeed"] = [];
  for (const seed of o.seeds) {
    const learner = newLearner(o.learner, seed);
    const tasks = Rng.seeded(seed, "rig/tasks");
    let trained = 0;
    const out: RigCheckpoint[] = [];
    for (const checkpoint of checkpoints) {
      const requests: EpisodeRequest[] = Array.from({ length: checkpoint - trained }, () => {
        const f = tasks.pick(pool);
        return { family: f.name, difficulty: tasks.pick(f.difficulties), seed: tasks.int(1, 1_000_000) };
      });
      await playEpisodes(ports.parts, o.world, learner, requests, {
        ...play(`${o.id}-s${seed}-train`),
        firstIndex: trained,
      });
      trained = checkpoint;
      const policy = learner.policy();
      const evalId = `${o.id}-s${seed}-c${checkpoint}-eval`;
      const evaluation = await evaluateFrozen(ports.parts, o.world, policy, o.split, {
        ...play(evalId),
        ...(ports.recorder ? { recorder: ports.recorder(evalId) } : {}),
      });
      const finding = await ports.rig(
        Learner.restore(policy, { frozen: true }),
        policy,
        `${o.id}-s${seed}-c${checkpoint}`,
      );
      const top = finding.diagnoses[0] ? weaknessKey(finding.diagnoses[0]) : null;
      say(
        `seed ${seed} @${checkpoint}: regression ${evaluation.regression.passed}/${evaluation.regression.trials}; top weakness ${top ?? "none"}${finding.diagnoses[0] ? ` (${finding.diagnoses[0].support.trials}/${finding.diagnoses[0].support.of} failed trials)` : ""}; ${finding.accepted} accepted of ${finding.candidates.length}`,
      );
      out.push({ checkpoint, policyHash: policy.hash, evaluation, finding, top });
    }
    perSeed.push({ seed, checkpoints: out });
  }
  const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
  const byCheckpoint = checkpoints.map((checkpoint, i) => {
    const top: Record<string, number> = {};
    for (const s of perSeed) {
      const key = s.checkpoints[i].top ?? "none";
      top[key] = (top[key] ?? 0) + 1;
    }
    return {
      checkpoint,
      top,
      regressionRate: mean(perSeed.map((s) => s.checkpoints[i].evaluation.regression.rate)),
      heldoutRate: mean(perSeed.map((s) => s.checkpoints[i].evaluation.heldout.rate)),
    };
  });
  const changes = checkpoints.slice(1).map((_, i) => topChange(perSeed, i, i + 1));
  const overall = topChange(perSeed, 0, Math.max(0, checkpoints.length - 1));
  const first = byCheckpoint[0];
  const last = byCheckpoint[byCheckpoint.length - 1];
  const answer =
    checkpoints.length < 2
      ? "one checkpoint: nothing to compare"
      : `from ${first.checkpoint} to ${last.checkpoint} episodes the mean regression pass rate went ${pct(first.regressionRate)} -> ${pct(last.regressionRate)}; the top weakness changed for ${overall.changed} of ${overall.seeds} seeds (${pct(overall.share)}); between consecutive checkpoints: ${changes.map((c) => `${c.from}->${c.to} ${c.changed}/${c.seeds} (${c.changedNamed}/${c.named} of the seeds named at both)`).join(", ")}`;
  const { regression, heldout } = o.split;
  return {
    schemaVersion: 1,
    kind: "train.rig",
    id: o.id,
    world: o.world.id,
    learner: o.learner === "q" ? "learner.q@1" : "learner.pg@1",
    checkpoints,
    seeds: [...o.seeds],
    split: {
      trainFamilies: o.split.trainFamilies,
      heldoutFamilies: o.split.heldoutFamilies,
      regressionTasks: regression.length,
      heldoutTasks: heldout.length,
    },
    perSeed,
    byCheckpoint,
    changes,
    overall,
    answer,
  };
}
