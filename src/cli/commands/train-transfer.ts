import fs from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import { configError } from "../../core/errors.ts";
import type { JsonValue } from "../../core/json.ts";
import type { TransferResult, VariantSource } from "../../train/index.ts";
import { collect, intOption, numberOption, printJson, storePath, withStore } from "../context.ts";
import type { GymSource } from "../gym-source.ts";
import {
  experimentPrefix,
  intList,
  learnerKind,
  learnerWorld,
  type SharedTrainFlags,
  sharedTrainOptions,
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
      const [{ runTransfer, trainSplit }, { StoreRecorder }, { acceptedVariants, rigLearner }] =
        await Promise.all([
          import("../../train/index.ts"),
          import("../../runner/store-recorder.ts"),
          import("./train-rigger.ts"),
        ]);
      const gym = await gymSource();
      const world = learnerWorld(gym, flags.world);
      const learner = learnerKind(flags.learner);
      if (flags.warmup > flags.episodes)
        throw configError("bad_flag", `--warmup ${flags.warmup} is more than --episodes ${flags.episodes}`);
      if (!(flags.variantShare >= 0 && flags.variantShare <= 1))
        throw configError("bad_flag", `--variant-share: a number in [0, 1], got ${flags.variantShare}`);
      const split = trainSplit(world, {
        ...(flags.heldout ? { heldout: flags.heldout } : {}),
        seeds: intList("--eval-seeds", flags.evalSeeds ?? "9001,9002"),
      });
      const seeds = intList("--seeds", flags.seeds);
      const id = experimentPrefix(flags.id, "transfer");
      const file = storePath(flags.store);
      // variants given (flags or the store's accepted ones) replace the rigger, the same for every seed
      let given: VariantSource | undefined;
      if (flags.variant?.length || flags.acceptedVariants) {
        const { readVariantFlag } = await import("../variant-flag.ts");
        let specs: JsonValue[] = (flags.variant ?? []).flatMap((v) => readVariantFlag(v, gym));
        if (flags.acceptedVariants) {
          const { openCurriculumStore } = await import("../../curriculum/curriculum-store.ts");
          const history = await openCurriculumStore(file);
          try {
            const stored = await history.listVariants({ status: "accepted" });
            specs = [...specs, ...stored.map((v) => v.variant)];
          } finally {
            await history.close();
          }
        }
        const mine = specs.filter((v) => gym.harness.normalize(v).world === world.id);
        if (mine.length === 0)
          throw configError(
            "bad_flag",
            `--variant/--accepted-variants: no variant of ${world.id} was given or stored`,
          );
        given = {
          source: flags.acceptedVariants && !flags.variant?.length ? "store" : "given",
          variants: mine.map((variant) => ({ variant, variantId: gym.harness.variantId(variant) })),
        };
      }
      const result = await withStore(file, "write", async (store) => {
        if (await store.getExperiment(`${id}-s${seeds[0]}-warm-eval`))
          throw configError(
            "experiment_exists",
            `train transfer ${id} is stored already: choose another --id`,
          );
        const r = await runTransfer(
          {
            id,
            world,
            learner,
            episodes: flags.episodes,
            warmup: flags.warmup,
            seeds,
            split,
            variantShare: flags.variantShare,
            ...(flags.poolVariants ? { poolVariants: true } : {}),
            ...(flags.maxSteps !== undefined ? { maxSteps: flags.maxSteps } : {}),
          },
          {
            parts: { registry: gym.registry, environment: gym.harness.environment },
            recorder: () => new StoreRecorder(store),
            variants: async (seed, warm) => {
              if (given) return given;
              const rig = await rigLearner(
                {
                  gym,
                  world: world.id,
                  store,
                  families: split.trainFamilies,
                  ...(flags.rigRollouts !== undefined ? { budgetPerWeakness: flags.rigRollouts } : {}),
                  ...(flags.baselineTrials !== undefined ? { baselineTrials: flags.baselineTrials } : {}),
                  ...(flags.maxSteps !== undefined ? { maxSteps: flags.maxSteps } : {}),
                },
                warm,
                `${id}-s${seed}-rig`,
              );
              return {
                source: `rigger ${rig.id}`,
                variants: acceptedVariants(rig),
                detail: {
                  baseline: rig.baseline,
                  diagnoses: rig.diagnoses.map((d) => ({
                    pattern: d.pattern,
                    tool: typeof d.facts?.tool === "string" ? d.facts.tool : null,
                    support: d.support ?? null,
                  })),
                  candidates: rig.candidates.map((c) => ({
                    variantId: c.variantId,
                    pattern: c.pattern,
                    decision: c.decision ?? null,
                  })),
                } as unknown as JsonValue,
              };
            },
            ...(flags.json ? {} : { onEvent: (m: string) => process.stderr.write(`${m}\n`) }),
          },
        );
        let report: string | undefined;
        if (flags.report !== false) {
          const [{ defaultReportPath, writeHtmlReport }, { transferSection }] = await Promise.all([
            import("../../report/html/index.ts"),
            import("../../report/html/transfer-section.ts"),
          ]);
          const evaluation =
            r.perSeed[0]?.arms[1]?.evaluation.experimentId ?? `${id}-s${seeds[0]}-variants-eval`;
          const target = typeof flags.report === "string" ? flags.report : defaultReportPath(file, id);
          report = (await writeHtmlReport(store, evaluation, target, { sections: [transferSection(r)] }))
            .path;
        }
        const out = path.join(path.dirname(path.resolve(file)), "train", `${id}.json`);
        fs.mkdirSync(path.dirname(out), { recursive: true });
        fs.writeFileSync(out, `${JSON.stringify(r, null, 2)}\n`);
        return { r, report, out };
      });
      if (flags.json)
        printJson({ ...result.r, files: { result: result.out, report: result.report ?? null } });
      else {
        process.stdout.write(`${renderTransfer(result.r)}\nresult: ${result.out}\n`);
        if (result.report) process.stdout.write(`report: ${result.report}\n`);
      }
    });
}
