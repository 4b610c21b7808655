import type { Command } from "commander";
import { configError } from "../../core/errors.ts";
import type { RigCheckpointResult } from "../../train/index.ts";
import { withStore } from "../context.ts";
import type { GymSource } from "../gym-source.ts";
import {
  intList,
  keepTrainResult,
  printTrainResult,
  rigSettings,
  type SharedTrainFlags,
  sharedTrainOptions,
  trainContext,
} from "./train-flags.ts";

interface TrainRigFlags extends SharedTrainFlags {
  checkpoints: string;
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

/** The result as text: per seed and checkpoint the pass rates and what the rigger named, then the answer. */
export function renderTrainRig(r: RigCheckpointResult): string {
  const lines = [
    `rig the learner ${r.id}: ${r.learner} on ${r.world}, checkpoints ${r.checkpoints.join(",")}, seeds ${r.seeds.join(",")}`,
  ];
  for (const s of r.perSeed) {
    lines.push(`seed ${s.seed}`);
    for (const c of s.checkpoints) {
      const fam = c.evaluation.regression.families
        .concat(c.evaluation.heldout.families)
        .map((f) => `${f.family} ${f.passed}/${f.trials}`)
        .join(", ");
      const named = c.finding.diagnoses
        .slice(0, 3)
        .map(
          (d) =>
            `${d.tool ? `${d.pattern}:${d.tool}` : d.pattern} [${d.families.join(" ")}] ${d.support.trials}/${d.support.of}`,
        );
      const decided = c.finding.candidates.map((x) => `${x.decision} ${x.variantId} (${x.pattern})`);
      lines.push(
        `  @${String(c.checkpoint).padEnd(6)} regression ${pct(c.evaluation.regression.rate)}, held-out ${c.evaluation.heldout.trials ? pct(c.evaluation.heldout.rate) : "-"}; rig baseline ${c.finding.baseline.passed}/${c.finding.baseline.trials}`,
        `          weaknesses: ${named.join("; ") || "none named"}`,
        `          candidates: ${decided.join("; ") || "none"}`,
        `          per family: ${fam}`,
      );
    }
  }
  lines.push("top weakness per checkpoint (seeds):");
  for (const c of r.byCheckpoint)
    lines.push(
      `  @${String(c.checkpoint).padEnd(6)} ${Object.entries(c.top)
        .map(([k, n]) => `${k} x${n}`)
        .join(", ")}  (mean regression ${pct(c.regressionRate)})`,
    );
  lines.push(`answer: ${r.answer}`);
  return lines.join("\n");
}

export function registerTrainRig(train: Command, gymSource: GymSource): void {
  sharedTrainOptions(
    train
      .command("rig")
      .description(
        "rig the learner: train it and at checkpoints freeze it and run the rigger (diagnosis, template variants, validation) on its rollouts; does the weakness it names change as the learner improves?",
      ),
  )
    .option("--checkpoints <list>", "training episodes at which the learner is rigged", "0,500,1000,2000")
    .action(async (flags: TrainRigFlags) => {
      const [
        { runRigCheckpoints, trainSplit },
        { StoreRecorder },
        { rigFinding, rigLearner },
        { rigLearnerSection },
      ] = await Promise.all([
        import("../../train/index.ts"),
        import("../../runner/store-recorder.ts"),
        import("./train-rigger.ts"),
        import("../../report/html/transfer-section.ts"),
      ]);
      const c = await trainContext(flags, gymSource, "train-rig");
      const checkpoints = intList("--checkpoints", flags.checkpoints);
      if (checkpoints.some((n) => n < 0))
        throw configError("bad_flag", `--checkpoints: episode counts are >= 0, got "${flags.checkpoints}"`);
      // nothing is held out unless asked: the rigger's baseline covers every family
      const split = trainSplit(c.world, { heldout: flags.heldout ?? [], seeds: c.evalSeeds });
      const { r, files } = await withStore(c.file, "write", async (store) => {
        const first = `${c.id}-s${c.seeds[0]}-c${Math.min(...checkpoints)}-eval`;
        if (await store.getExperiment(first))
          throw configError("experiment_exists", `train rig ${c.id} is stored already: choose another --id`);
        const r = await runRigCheckpoints(
          {
            id: c.id,
            world: c.world,
            learner: c.learner,
            checkpoints,
            seeds: c.seeds,
            split,
            ...(flags.maxSteps !== undefined ? { maxSteps: flags.maxSteps } : {}),
          },
          {
            parts: { registry: c.gym.registry, environment: c.gym.harness.environment },
            recorder: () => new StoreRecorder(store),
            rig: async (frozen, _policy, rigId) =>
              rigFinding(await rigLearner(rigSettings(flags, c, store, split.trainFamilies), frozen, rigId)),
            ...(flags.json ? {} : { onEvent: (m: string) => process.stderr.write(`${m}\n`) }),
          },
        );
        const files = await keepTrainResult(flags, c, store, r, {
          experiment: first,
          section: rigLearnerSection(r),
        });
        return { r, files };
      });
      printTrainResult(flags, r, files, () => renderTrainRig(r));
    });
}
