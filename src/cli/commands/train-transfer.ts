import type { Command } from "commander";
import { configError } from "../../core/errors.ts";
import type { JsonValue } from "../../core/json.ts";
import type { RigResult } from "../../rigger/rig.ts";
import type { TransferResult, VariantSource } from "../../train/index.ts";
import { collect, intOption, numberOption, withStore } from "../context.ts";
import type { GymSource } from "../gym-source.ts";
import {
  keepTrainResult,
  printTrainResult,
  rigSettings,
  type SharedTrainFlags,
  sharedTrainOptions,
  type TrainContext,
  trainContext,
} from "./train-flags.ts";

interface TransferFlags extends SharedTrainFlags {
  episodes: number;
  warmup: number;
  variantShare: number;
  variant?: string[];
  acceptedVariants?: boolean;
  poolVariants?: boolean;
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
const pp = (x: number) => `${x >= 0 ? "+" : ""}${(100 * x).toFixed(1)} pp`;

/** The transfer result as text: the transfer table, then per seed its variants and rates. */
export function renderTransfer(r: TransferResult): string {
  const names = { warm: "warm-up only", base: "(a) original world", variants: "(b) original + variants" };
  const interval = (i: { estimate: number; lo: number; hi: number }, f: (x: number) => string) =>
    `${f(i.estimate)} [${f(i.lo)}, ${f(i.hi)}]`;
  const lines = [
    `transfer ${r.id}: ${r.learner} on ${r.world}, ${r.episodes} episodes per arm (${r.warmup} warm-up), seeds ${r.seeds.join(",")}`,
    `regression: ${r.split.trainFamilies.join(", ")} (${r.split.regressionTasks} tasks); held out: ${r.split.heldoutFamilies.join(", ") || "none"} (${r.split.heldoutTasks} tasks)`,
    `${"arm".padEnd(28)}${"regression [95% CI]".padEnd(30)}held-out [95% CI]`,
    ...r.arms.map(
      (a) => `${names[a.arm].padEnd(28)}${interval(a.regression, pct).padEnd(30)}${interval(a.heldout, pct)}`,
    ),
    `${"(b) - (a), paired by seed".padEnd(28)}${interval(r.difference.regression, pp).padEnd(30)}${interval(r.difference.heldout, pp)}`,
    `${r.seedsWithVariants} of ${r.seeds.length} seeds had variants to train on (${r.distinctVariants} distinct accepted${r.poolVariants ? ", pooled over seeds" : ""})`,
  ];
  for (const s of r.perSeed) {
    const [a, b] = s.arms;
    const v = s.variantSource.variants.map((x) => `${x.variantId}${x.pattern ? ` (${x.pattern})` : ""}`);
    lines.push(
      `  seed ${s.seed}: ${s.variantSource.source}: ${v.join(", ") || "no variant"}; arm (b) trained on ${b.variants?.length ?? 0} variant(s), ${b.episodes.variant} episodes; regression warm ${s.warm.regression.passed}, (a) ${a.evaluation.regression.passed}, (b) ${b.evaluation.regression.passed} of ${a.evaluation.regression.trials}; held-out (a) ${a.evaluation.heldout.passed}, (b) ${b.evaluation.heldout.passed} of ${a.evaluation.heldout.trials}`,
    );
  }
  return lines.join("\n");
}

export function registerTrainTransfer(train: Command, gymSource: GymSource): void {
  sharedTrainOptions(
    train
      .command("transfer")
      .description(
        "EnvHarness transfer: the same learner and episode budget trained (a) on the world, (b) on the world plus the rigger's accepted variants; evaluated frozen on the unmodified world, paired by seed",
      ),
  )
    .option("--episodes <n>", "training episodes per arm, warm-up included", intOption("--episodes"), 5000)
    .option(
      "--warmup <n>",
      "warm-up episodes on the world, shared by both arms; the rigger diagnoses the warm learner",
      intOption("--warmup"),
      1000,
    )
    .option(
      "--variant-share <x>",
      "share of arm (b)'s episodes after the warm-up played on variants, round-robin",
      numberOption("--variant-share"),
      0.5,
    )
    .option("--variant <file|json>", "train arm (b) on this variant instead of rigging (repeatable)", collect)
    .option(
      "--accepted-variants",
      "train arm (b) on the store's accepted variants of the world instead of rigging",
    )
    .option(
      "--pool-variants",
      "every seed's arm (b) trains on the variants accepted for all seeds' warm learners",
    )
    .action(async (flags: TransferFlags) => {
      const [
        { runTransfer, trainSplit },
        { StoreRecorder },
        { acceptedVariants, rigLearner },
        { transferSection },
      ] = await Promise.all([
        import("../../train/index.ts"),
        import("../../runner/store-recorder.ts"),
        import("./train-rigger.ts"),
        import("../../report/html/transfer-section.ts"),
      ]);
      const c = await trainContext(flags, gymSource, "transfer");
      if (flags.warmup > flags.episodes)
        throw configError("bad_flag", `--warmup ${flags.warmup} is more than --episodes ${flags.episodes}`);
      if (!(flags.variantShare >= 0 && flags.variantShare <= 1))
        throw configError("bad_flag", `--variant-share: a number in [0, 1], got ${flags.variantShare}`);
      const split = trainSplit(c.world, {
        ...(flags.heldout ? { heldout: flags.heldout } : {}),
        seeds: c.evalSeeds,
      });
      const given = await givenVariants(flags, c);
      const { r, files } = await withStore(c.file, "write", async (store) => {
        if (await store.getExperiment(`${c.id}-s${c.seeds[0]}-warm-eval`))
          throw configError(
            "experiment_exists",
            `train transfer ${c.id} is stored already: choose another --id`,
          );
        const r = await runTransfer(
          {
            id: c.id,
            world: c.world,
            learner: c.learner,
            episodes: flags.episodes,
            warmup: flags.warmup,
            seeds: c.seeds,
            split,
            variantShare: flags.variantShare,
            ...(flags.poolVariants ? { poolVariants: true } : {}),
            ...(flags.maxSteps !== undefined ? { maxSteps: flags.maxSteps } : {}),
          },
          {
            parts: { registry: c.gym.registry, environment: c.gym.harness.environment },
            recorder: () => new StoreRecorder(store),
            variants: async (seed, warm) => {
              if (given) return given;
              const rig = await rigLearner(
                rigSettings(flags, c, store, split.trainFamilies),
                warm,
                `${c.id}-s${seed}-rig`,
              );
              return { source: `rigger ${rig.id}`, variants: acceptedVariants(rig), detail: rigDetail(rig) };
            },
            ...(flags.json ? {} : { onEvent: (m: string) => process.stderr.write(`${m}\n`) }),
          },
        );
        const files = await keepTrainResult(flags, c, store, r, {
          experiment:
            r.perSeed[0]?.arms[1]?.evaluation.experimentId ?? `${c.id}-s${c.seeds[0]}-variants-eval`,
          section: transferSection(r),
        });
        return { r, files };
      });
      printTrainResult(flags, r, files, () => renderTransfer(r));
    });
}

/** What a seed's source keeps of its rig run: the baseline, the diagnoses with their support, the decisions. */
function rigDetail(rig: RigResult): JsonValue {
  return {
    baseline: rig.baseline,
    diagnoses: rig.diagnoses.map((d) => ({
      pattern: d.pattern,
      tool: typeof d.facts?.tool === "string" ? d.facts.tool : null,
      support: d.support ?? null,
    })),
    candidates: rig.candidates.map((x) => ({
      variantId: x.variantId,
      pattern: x.pattern,
      decision: x.decision ?? null,
    })),
  } as unknown as JsonValue;
}

/** `--variant` / `--accepted-variants`: the variants of the world every seed's arm (b) trains on (no rigging). */
async function givenVariants(flags: TransferFlags, c: TrainContext): Promise<VariantSource | undefined> {
  if (!flags.variant?.length && !flags.acceptedVariants) return undefined;
  const { readVariantFlag } = await import("../variant-flag.ts");
  let specs: JsonValue[] = (flags.variant ?? []).flatMap((v) => readVariantFlag(v, c.gym));
  if (flags.acceptedVariants) {
    const { openCurriculumStore } = await import("../../curriculum/curriculum-store.ts");
    const history = await openCurriculumStore(c.file);
    try {
      const stored = await history.listVariants({ status: "accepted" });
      specs = [...specs, ...stored.map((v) => v.variant)];
    } finally {
      await history.close();
    }
  }
  const mine = specs.filter((v) => c.gym.harness.normalize(v).world === c.world.id);
  if (mine.length === 0)
    throw configError(
      "bad_flag",
      `--variant/--accepted-variants: no variant of ${c.world.id} was given or stored`,
    );
  return {
    source: flags.acceptedVariants && !flags.variant?.length ? "store" : "given",
    variants: mine.map((variant) => ({ variant, variantId: c.gym.harness.variantId(variant) })),
  };
}
