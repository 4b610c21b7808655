/**
 * The learn loop behind `proving learn`. Induce skills from (a) the original world and (b) accepted
 * harness variants, each from the same number of trials of the learner with no skills (matched
 * sizes, the same families, difficulties and seeds); then evaluate three learners — no skills, bank
 * (a), bank (b) — in one experiment on the unmodified world, on the training families and on held-out
 * families never induced from, with the same tasks, seeds and budgets for each arm; pair them per
 * task and seed (McNemar exact, Newcombe paired interval) and give each arm's pass rate with its
 * Wilson interval. Every experiment is a normal recorded experiment (`proving report`, `export`).
 */
import type { TrialRecord } from "../core/contracts.ts";
import { configError } from "../core/errors.ts";
import type { JsonValue } from "../core/json.ts";
import { readVariant, type VariantSpec, variantId } from "../harness/variant.ts";
import { type ExperimentConfig, parseExperiment } from "../runner/experiment.ts";
import { runExperiment } from "../runner/run.ts";
import type { RunParts } from "../runner/run-parts.ts";
import type { Store } from "../store/store.ts";
import { type Inducer, ruleInducer } from "./inducer.ts";
import type { Arm, InductionArm, LearnResult } from "./learn-result.ts";
import { LEARNER_WORLD, resolvedLearner } from "./learner-agent.ts";
import { evaluationSet } from "./paired-arms.ts";
import { bm25Bank, type SkillBank } from "./skill-bank.ts";

export interface LearnOptions {
  /** Names the experiments: `<id>-induce-original`, `<id>-induce-variants`, `<id>-eval`. */
  id: string;
  /** Accepted variants of the learner's world (arm b). Default: `DEFAULT_LEARN_VARIANTS`. */
  variants?: readonly (VariantSpec | JsonValue)[];
  /** Families never induced from, evaluated apart (default `delayed-receipt`, `unverifiable`). */
  heldoutFamilies?: string[];
  /** Families induced from and evaluated on (default: the world's others). */
  trainFamilies?: string[];
  /** Trials each inducer reads (default 8): the same number for both arms. */
  inductionTrials?: number;
  inductionDifficulties?: number[];
  /** Base seed of the induction trials (default 1000: apart from the evaluation seeds). */
  inductionSeed?: number;
  evalDifficulties?: number[];
  /** Seeds per family × difficulty in the evaluation (default 4). */
  evalTrials?: number;
  /** Base seed of the evaluation (default 0). */
  seed?: number;
  /** Skills the learner retrieves per task (default 3). */
  k?: number;
  /** The rule inducer's minimum support (default 2). */
  minSupport?: number;
  /** Default: the rule inducer with `minSupport`. */
  inducer?: Inducer;
  confidence?: number;
  concurrency?: number;
  /** Per-trial step budget (default 200). */
  maxSteps?: number;
}

export interface LearnDeps {
  /** What running trials needs (`gym.runOptions()`). */
  run: RunParts;
  store?: Store;
  now?: () => Date;
}

export interface LearnOutput {
  result: LearnResult;
  banks: { original: SkillBank; variants: SkillBank };
}

/**
 * The default accepted variants: what the rigger proposes for a learner that retries timed-out writes
 * under new keys — the unmodified world with create_replacement's first reply lost after commit.
 */
export const DEFAULT_LEARN_VARIANTS: readonly VariantSpec[] = [
  {
    world: LEARNER_WORLD,
    layers: [{ id: "rule.lose-reply-after-commit@1", params: { tool: "create_replacement" } }],
    name: "lost reply on create_replacement",
  },
];

export const DEFAULT_HELDOUT_FAMILIES = ["delayed-receipt", "unverifiable"];

/** Sorts records so the first N spread over cells: by seed, then manifest index. */
const bySpread = (a: TrialRecord, b: TrialRecord) =>
  a.spec.repeat - b.spec.repeat || a.spec.seed - b.spec.seed || a.spec.index - b.spec.index;

async function collect(
  config: ExperimentConfig,
  deps: LearnDeps,
  agents: ReturnType<typeof resolvedLearner>[],
  concurrency: number | undefined,
): Promise<{
  experimentId: string;
  records: TrialRecord[];
  rows: Awaited<ReturnType<typeof runExperiment>>["trials"];
}> {
  const records = new Map<string, TrialRecord>();
  const result = await runExperiment(config, {
    ...deps.run,
    agents,
    ...(deps.store ? { store: deps.store } : {}),
    ...(deps.now ? { now: deps.now } : {}),
    ...(concurrency ? { concurrency } : {}),
    onTrial: (r) => {
      records.set(r.spec.id, r);
    },
  });
  if (deps.store) {
    // trials recorded by an earlier run of the same experiment (a re-run resumes it)
    for (const t of result.trials) {
      if (records.has(t.trialId) || t.outcome === "missing") continue;
      const r = await deps.store.getTrial(t.trialId);
      if (r) records.set(r.spec.id, r);
    }
  }
  return { experimentId: result.experimentId, records: [...records.values()], rows: result.trials };
}

function inductionArm(experimentId: string, records: TrialRecord[], bank: SkillBank): InductionArm {
  return {
    experimentId,
    trials: records.length,
    variants: [...new Set(records.map((r) => r.spec.variantId ?? "base"))],
    bank: bank.name,
    skills: bank.skills.map((s) => ({
      id: s.id,
      title: s.title,
      support: s.provenance.trials.length,
      ...(s.directive ? { directive: s.directive.kind } : {}),
    })),
  };
}

export async function runLearn(options: LearnOptions, deps: LearnDeps): Promise<LearnOutput> {
  const world = deps.run.registry.world(LEARNER_WORLD);
  const allFamilies = world.families.map((f) => f.name);
  const heldout = options.heldoutFamilies ?? DEFAULT_HELDOUT_FAMILIES;
  const train = options.trainFamilies ?? allFamilies.filter((f) => !heldout.includes(f));
  for (const f of [...heldout, ...train])
    if (!allFamilies.includes(f)) throw configError("unknown_family", `${world.id} has no family ${f}`);
  const overlap = train.filter((f) => heldout.includes(f));
  if (overlap.length)
    throw configError("bad_flag", `held-out families cannot be trained on: ${overlap.join(", ")}`);
  if (train.length === 0) throw configError("bad_flag", "no family left to induce from");
  const variants = (options.variants ?? DEFAULT_LEARN_VARIANTS).map((v, i) =>
    readVariant(v, `variants[${i}]`),
  );
  if (variants.length === 0) throw configError("bad_flag", "arm (b) needs at least one accepted variant");
  for (const v of variants)
    if (deps.run.registry.world(v.world).id !== world.id)
      throw configError(
        "bad_flag",
        `variant ${variantId(v)} is of ${v.world}; the learner plays ${world.id}`,
      );

  const n = options.inductionTrials ?? 8;
  if (!Number.isInteger(n) || n < 1)
    throw configError("bad_flag", "induction trials must be a positive integer");
  const inductionDifficulties = options.inductionDifficulties ?? [1];
  const evalDifficulties = options.evalDifficulties ?? [1, 2];
  const evalTrials = options.evalTrials ?? 4;
  const k = options.k ?? 3;
  const minSupport = options.minSupport ?? 2;
  const confidence = options.confidence ?? 0.95;
  const seed = options.seed ?? 0;
  const inductionSeed = options.inductionSeed ?? 1000;
  const inducer = options.inducer ?? ruleInducer({ minSupport });
  const budget = { maxSteps: options.maxSteps ?? 200 };
  const naive = resolvedLearner({ id: "learner" });

  // ---- induction: the same number of trials of the learner with no skills, per arm
  const inductionConfig = (suffix: string, withVariants: boolean, cells: number): ExperimentConfig =>
    parseExperiment({
      id: `${options.id}-induce-${suffix}`,
      description: `proving learn ${options.id}: induction trials, ${suffix}`,
      worlds: [world.id],
      families: train,
      difficulties: inductionDifficulties,
      agents: ["learner"],
      trials: Math.ceil(n / cells),
      seed: inductionSeed,
      budget,
      ...(withVariants ? { variants: variants as unknown as JsonValue[] } : {}),
    });
  const cellsA = train.length * inductionDifficulties.length;
  const a = await collect(inductionConfig("original", false, cellsA), deps, [naive], options.concurrency);
  const b = await collect(
    inductionConfig("variants", true, cellsA * variants.length),
    deps,
    [naive],
    options.concurrency,
  );
  const pick = (records: TrialRecord[]) => [...records].sort(bySpread).slice(0, n);
  const readA = pick(a.records);
  const readB = pick(b.records);
  const induced = {
    original: await inducer.induce(readA),
    variants: await inducer.induce(readB),
  };
  const banks = {
    original: bm25Bank(`${options.id}-original`, induced.original.skills, [induced.original.record]),
    variants: bm25Bank(`${options.id}-variants`, induced.variants.skills, [induced.variants.record]),
  };

  // ---- evaluation: three learners on the unmodified world, same tasks, seeds and budgets
  const armOf: Record<string, Arm> = {
    "learner:none": "none",
    "learner:original": "original",
    "learner:variants": "variants",
  };
  const learners = [
    resolvedLearner({ id: "learner:none", k }),
    resolvedLearner({ id: "learner:original", bank: banks.original, k }),
    resolvedLearner({ id: "learner:variants", bank: banks.variants, k }),
  ];
  const evalConfig = parseExperiment({
    id: `${options.id}-eval`,
    description: `proving learn ${options.id}: no skills vs (a) original vs (b) variants, unmodified world`,
    worlds: [world.id],
    families: [...train, ...heldout],
    difficulties: evalDifficulties,
    agents: learners.map((l) => l.ref.id),
    trials: evalTrials,
    seed,
    budget,
  });
  const evaluation = await collect(evalConfig, deps, learners, options.concurrency);
  const sets = [
    evaluationSet("unmodified", train, evaluation.rows, armOf, confidence),
    ...(heldout.length ? [evaluationSet("heldout", heldout, evaluation.rows, armOf, confidence)] : []),
  ];
  return {
    banks,
    result: {
      schemaVersion: 1,
      id: options.id,
      world: world.id,
      inducer: inducer.id,
      settings: {
        inductionTrials: n,
        inductionDifficulties,
        evalDifficulties,
        evalTrials,
        trainFamilies: train,
        heldoutFamilies: heldout,
        variants,
        k,
        minSupport,
        seed,
        inductionSeed,
        confidence,
      },
      induction: {
        original: inductionArm(a.experimentId, readA, banks.original),
        variants: inductionArm(b.experimentId, readB, banks.variants),
      },
      evaluation: { experimentId: evaluation.experimentId, sets },
    },
  };
}
