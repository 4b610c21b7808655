/**
 * The learn loop behind `proving learn`. For each induction seed, induce skills from (a) the original
 * world and (b) accepted harness variants, each from the same number of trials of the agent with no
 * skills (matched sizes, the same families, difficulties and seeds); then evaluate, in one experiment
 * on the unmodified world, the agent with no skills and with each seed's bank (a) and (b), on the
 * training families and on held-out families never induced from, with the same tasks, seeds and
 * budgets for every arm. Arms pool the induction seeds; intervals are by family cluster
 * (`paired-arms.ts`). Every experiment is a normal recorded experiment (`proving report`, `export`).
 */
import type { TrialRecord } from "../core/contracts.ts";
import { configError } from "../core/errors.ts";
import type { JsonValue } from "../core/json.ts";
import type { WorldDefinition } from "../core/registry.ts";
import { readVariant, type VariantSpec, variantId } from "../harness/variant.ts";
import { type ExperimentConfig, parseExperiment } from "../runner/experiment.ts";
import { runExperiment } from "../runner/run.ts";
import type { RunParts } from "../runner/run-parts.ts";
import type { Store } from "../store/store.ts";
import type { ArmAgents } from "./arm-agent.ts";
import { type Inducer, ruleInducer } from "./inducer.ts";
import type { InductionArm, LearnResult } from "./learn-result.ts";
import { learnStatement } from "./learn-statement.ts";
import { type ArmOfAgent, evaluationSet } from "./paired-arms.ts";
import { bm25Bank, type SkillBank } from "./skill-bank.ts";
import { skillSource } from "./skill-source.ts";

export interface LearnOptions {
  /** Names the experiments: `<id>-induce-original-s<seed>`, `<id>-induce-variants-s<seed>`, `<id>-eval`. */
  id: string;
  /** The world to learn on (`name@version`). */
  world: string;
  /** Accepted variants of the world (arm b). Default: `defaultLearnVariants(world)`. */
  variants?: readonly (VariantSpec | JsonValue)[];
  /** Families never induced from, evaluated apart. Default: `defaultHeldoutFamilies(world)`. */
  heldoutFamilies?: string[];
  /** Families induced from and evaluated on (default: the world's others). */
  trainFamilies?: string[];
  /** Trials each inducer reads (default 8): the same number for both arms. */
  inductionTrials?: number;
  inductionDifficulties?: number[];
  /** Induction seeds (default 1, 2, 3): seed s plays task seeds from `INDUCTION_SEED_STRIDE × s` on. */
  inductionSeeds?: number[];
  evalDifficulties?: number[];
  /** Seeds per family × difficulty in the evaluation (default 4). */
  evalTrials?: number;
  /** Base seed of the evaluation (default 0). */
  seed?: number;
  /** Skills retrieved per task (default 3). */
  k?: number;
  /** The rule inducer's minimum support (default 2). */
  minSupport?: number;
  /** Default: the rule inducer with `minSupport`. */
  inducer?: Inducer;
  confidence?: number;
  /** Family-cluster bootstrap resamples (default 10000). */
  bootstrapIterations?: number;
  concurrency?: number;
  /** Per-trial step budget (default 200). */
  maxSteps?: number;
}

export interface LearnDeps {
  /** What running trials needs (`gym.runOptions()`). */
  run: RunParts;
  /** The agent every arm plays (`armAgents(spec, ...)`). */
  agents: ArmAgents;
  store?: Store;
  now?: () => Date;
}

export interface LearnOutput {
  result: LearnResult;
  /** One pair of banks per induction seed, in the order of `settings.inductionSeeds`. */
  banks: { seed: number; original: SkillBank; variants: SkillBank }[];
}

/** Induction seed s plays task seeds `INDUCTION_SEED_STRIDE × s`, … (the evaluation's are below). */
export const INDUCTION_SEED_STRIDE = 1000;
export const DEFAULT_INDUCTION_SEEDS = [1, 2, 3];

const READS = /^(get|find|list|search|check|read)_/;

/**
 * The default accepted variant of a world: its unmodified self with the first reply of each keyed
 * write (a tool taking an idempotency key that does not read) lost after commit — what the rigger
 * proposes for an agent that retries timed-out writes under new keys. None when the world has no
 * keyed write (give `variants`).
 */
export function defaultLearnVariants(world: WorldDefinition): VariantSpec[] {
  const writes = world
    .create()
    .spec.tools.filter(
      (t) =>
        !READS.test(t.name) &&
        Object.keys((t.input_schema.properties ?? {}) as object).some((k) => /idempotency/i.test(k)),
    )
    .map((t) => t.name);
  if (writes.length === 0) return [];
  return [
    {
      world: world.id,
      layers: writes.map((tool) => ({ id: "rule.lose-reply-after-commit@1", params: { tool } })),
      name: `lost reply on ${writes.join(", ")}`,
    },
  ];
}

/** The default held-out families: the last quarter of the world's families (at least one of three or more). */
export function defaultHeldoutFamilies(world: WorldDefinition): string[] {
  const names = world.families.map((f) => f.name);
  const n = names.length >= 3 ? Math.max(1, Math.floor(names.length / 4)) : 0;
  return names.slice(names.length - n);
}

/** Sorts records so the first N spread over cells: by seed, then manifest index. */
const bySpread = (a: TrialRecord, b: TrialRecord) =>
  a.spec.repeat - b.spec.repeat || a.spec.seed - b.spec.seed || a.spec.index - b.spec.index;

async function collect(
  config: ExperimentConfig,
  deps: LearnDeps,
  agents: Awaited<ReturnType<ArmAgents["agent"]>>[],
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

function inductionArm(
  seed: number,
  experimentId: string,
  records: TrialRecord[],
  bank: SkillBank,
): InductionArm {
  return {
    seed,
    experimentId,
    trials: records.length,
    variants: [...new Set(records.map((r) => r.spec.variantId ?? "base"))],
    bank: bank.name,
    skills: bank.skills.map((s) => ({ id: s.id, title: s.title, support: s.provenance.trials.length })),
  };
}

const positiveInts = (xs: readonly number[], what: string) => {
  if (xs.length === 0 || xs.some((x) => !Number.isInteger(x) || x < 1))
    throw configError("bad_flag", `${what} must be positive integers`);
  if (new Set(xs).size !== xs.length) throw configError("bad_flag", `${what} are listed twice`);
};

export async function runLearn(options: LearnOptions, deps: LearnDeps): Promise<LearnOutput> {
  const world = deps.run.registry.world(options.world);
  const allFamilies = world.families.map((f) => f.name);
  const heldout = options.heldoutFamilies ?? defaultHeldoutFamilies(world);
  const train = options.trainFamilies ?? allFamilies.filter((f) => !heldout.includes(f));
  for (const f of [...heldout, ...train])
    if (!allFamilies.includes(f)) throw configError("unknown_family", `${world.id} has no family ${f}`);
  const overlap = train.filter((f) => heldout.includes(f));
  if (overlap.length)
    throw configError("bad_flag", `held-out families cannot be trained on: ${overlap.join(", ")}`);
  if (train.length === 0) throw configError("bad_flag", "no family left to induce from");
  const variants = (options.variants ?? defaultLearnVariants(world)).map((v, i) =>
    readVariant(v, `variants[${i}]`),
  );
  if (variants.length === 0)
    throw configError(
      "bad_flag",
      `arm (b) needs at least one accepted variant: ${world.id} has no keyed write for the default one (give --variant)`,
    );
  for (const v of variants)
    if (deps.run.registry.world(v.world).id !== world.id)
      throw configError(
        "bad_flag",
        `variant ${variantId(v)} is of ${v.world}; the run learns on ${world.id}`,
      );

  const n = options.inductionTrials ?? 8;
  if (!Number.isInteger(n) || n < 1)
    throw configError("bad_flag", "induction trials must be a positive integer");
  const inductionSeeds = options.inductionSeeds ?? DEFAULT_INDUCTION_SEEDS;
  positiveInts(inductionSeeds, "induction seeds");
  const inductionDifficulties = options.inductionDifficulties ?? [1];
  const evalDifficulties = options.evalDifficulties ?? [1, 2];
  const evalTrials = options.evalTrials ?? 4;
  const k = options.k ?? 3;
  const minSupport = options.minSupport ?? 2;
  const confidence = options.confidence ?? 0.95;
  const iterations = options.bootstrapIterations ?? 10_000;
  const seed = options.seed ?? 0;
  if (seed < 0 || seed + evalTrials > INDUCTION_SEED_STRIDE)
    throw configError(
      "bad_flag",
      `evaluation seeds ${seed}..${seed + evalTrials - 1} must stay in 0..${INDUCTION_SEED_STRIDE - 1} (induction seeds play from ${INDUCTION_SEED_STRIDE} on)`,
    );
  const inducer = options.inducer ?? ruleInducer({ minSupport });
  const budget = { maxSteps: options.maxSteps ?? 200 };
  const naive = await deps.agents.agent({ id: "no-skills", record: { arm: "induction", skills: "none" } });

  // ---- induction: per seed, the same number of trials of the agent with no skills, per arm
  const cellsA = train.length * inductionDifficulties.length;
  const perTrials = Math.ceil(n / cellsA);
  if (perTrials > INDUCTION_SEED_STRIDE)
    throw configError("bad_flag", `at most ${INDUCTION_SEED_STRIDE} induction trials per cell`);
  const inductionConfig = (
    suffix: string,
    s: number,
    withVariants: boolean,
    cells: number,
  ): ExperimentConfig =>
    parseExperiment({
      id: `${options.id}-induce-${suffix}-s${s}`,
      description: `proving learn ${options.id}: induction trials, ${suffix}, induction seed ${s}`,
      worlds: [world.id],
      families: train,
      difficulties: inductionDifficulties,
      agents: [naive.ref.id],
      trials: Math.ceil(n / cells),
      seed: INDUCTION_SEED_STRIDE * s,
      budget,
      ...(withVariants ? { variants: variants as unknown as JsonValue[] } : {}),
    });
  const pick = (records: TrialRecord[]) => [...records].sort(bySpread).slice(0, n);
  const banks: LearnOutput["banks"] = [];
  const induction: LearnResult["induction"] = { original: [], variants: [] };
  for (const s of inductionSeeds) {
    const a = await collect(
      inductionConfig("original", s, false, cellsA),
      deps,
      [naive],
      options.concurrency,
    );
    const b = await collect(
      inductionConfig("variants", s, true, cellsA * variants.length),
      deps,
      [naive],
      options.concurrency,
    );
    const readA = pick(a.records);
    const readB = pick(b.records);
    const inducedA = await inducer.induce(readA);
    const inducedB = await inducer.induce(readB);
    const bankA = bm25Bank(`${options.id}-original-s${s}`, inducedA.skills, [inducedA.record]);
    const bankB = bm25Bank(`${options.id}-variants-s${s}`, inducedB.skills, [inducedB.record]);
    banks.push({ seed: s, original: bankA, variants: bankB });
    induction.original.push(inductionArm(s, a.experimentId, readA, bankA));
    induction.variants.push(inductionArm(s, b.experimentId, readB, bankB));
  }

  // ---- evaluation: the agent with no skills and with each seed's banks, same tasks, seeds and budgets
  const armOf: Record<string, ArmOfAgent> = { none: { arm: "none" } };
  const agents = [await deps.agents.agent({ id: "none", record: { arm: "none", skills: "none" } })];
  for (const b of banks)
    for (const arm of ["original", "variants"] as const) {
      const bank = b[arm];
      const id = `${arm}-s${b.seed}`;
      armOf[id] = { arm, seed: b.seed };
      agents.push(
        await deps.agents.agent({
          id,
          skills: skillSource(bank, k),
          record: {
            arm,
            inductionSeed: b.seed,
            bank: bank.name,
            k,
            skills: bank.skills.map((s) => s.id),
            index: bank.index.model,
          },
        }),
      );
    }
  const evalConfig = parseExperiment({
    id: `${options.id}-eval`,
    description: `proving learn ${options.id}: ${deps.agents.spec} with no skills vs (a) original vs (b) variants, unmodified world`,
    worlds: [world.id],
    families: [...train, ...heldout],
    difficulties: evalDifficulties,
    agents: agents.map((l) => l.ref.id),
    trials: evalTrials,
    seed,
    budget,
  });
  const evaluation = await collect(evalConfig, deps, agents, options.concurrency);
  const cluster = { confidence, iterations };
  const sets = [
    evaluationSet("unmodified", train, evaluation.rows, armOf, cluster),
    ...(heldout.length ? [evaluationSet("heldout", heldout, evaluation.rows, armOf, cluster)] : []),
  ];
  const statement = learnStatement(deps.agents.channel, inducer.id);
  return {
    banks,
    result: {
      schemaVersion: 2,
      id: options.id,
      world: world.id,
      agent: { spec: deps.agents.spec, channel: deps.agents.channel },
      inducer: inducer.id,
      settings: {
        inductionTrials: n,
        inductionDifficulties,
        inductionSeeds: [...inductionSeeds],
        evalDifficulties,
        evalTrials,
        trainFamilies: train,
        heldoutFamilies: heldout,
        variants,
        k,
        minSupport,
        seed,
        confidence,
        bootstrapIterations: iterations,
      },
      induction,
      evaluation: { experimentId: evaluation.experimentId, sets },
      ...statement,
    },
  };
}
