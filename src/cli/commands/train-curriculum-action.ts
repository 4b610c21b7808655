/**
 * What `proving train curriculum` does, loaded only when it runs: one curriculum run of the learner per
 * world × strategy × seed (the curriculum's own `runCurriculum`, recorded in the store's curriculum
 * tables and experiments), then `compareStrategies` over the stored histories, printed as a table or
 * as JSON, and optionally the HTML report with the learning-curves section.
 */
import { isInfraOutcome } from "../../core/contracts.ts";
import { configError } from "../../core/errors.ts";
import type { WorldDefinition } from "../../core/registry.ts";
import {
  type CurriculumEvaluation,
  type CurriculumResult,
  curriculumConfig,
  DEFAULT_STRATEGY,
  defaultSplit,
  openCurriculumStore,
  runCurriculum,
  type SplitFile,
  STRATEGIES,
} from "../../curriculum/index.ts";
import type { Gym } from "../../gym/gym.ts";
import { interruptOnSignals } from "../../runner/interrupt.ts";
import {
  areaUnderCurve,
  censoringNote,
  compareStrategies,
  type EvaluationPoint,
  episodesToTarget,
  passRateOf,
  type StrategyComparison,
  type StrategyRun,
} from "../../train/index.ts";
import { printJson, storePath, withStore } from "../context.ts";

/** The flags of `proving train curriculum`, as commander parses them. */
export interface TrainCurriculumFlags {
  world?: string[];
  strategies?: string;
  learner: string;
  learnerOptions?: string;
  episodes: number;
  evalEvery: number;
  seeds: string;
  heldout?: string[];
  target: number;
  difficulty?: boolean;
  id?: string;
  store?: string;
  report?: string;
  json?: boolean;
}

/** The worlds experiment 1 trains on unless `--world` says otherwise. */
export const DEFAULT_TRAIN_WORLDS = ["device-support@1", "order-ops@1"];

/** A family's middle difficulty, as the default regression split takes it. */
function middle(world: WorldDefinition, family: string): number {
  const f = world.families.find((x) => x.name === family);
  if (!f) throw configError("unknown_family", `${world.id} has no family ${family}`);
  return f.difficulties[Math.floor((f.difficulties.length - 1) / 2)];
}

/**
 * The split of one world's runs: the default regression split (each family at its middle difficulty,
 * seeds 1 and 2) without the held-out families, which are evaluated apart the same way (middle
 * difficulty, seeds 1 and 2) and never sampled for training.
 */
export function trainingSplit(world: WorldDefinition, heldout: readonly string[]): SplitFile {
  const base = defaultSplit([world]);
  const held = heldout.filter((f) => world.families.some((x) => x.name === f));
  return {
    ...base,
    name: `${base.name}${held.length ? ` heldout:${held.join(",")}` : ""}`,
    regression: { ...base.regression, tasks: base.regression.tasks.filter((t) => !held.includes(t.family)) },
    heldout: {
      families: held,
      variants: [],
      seeds: [1, 2],
      tasks: held.map((family) => ({
        world: world.id,
        family,
        difficulty: middle(world, family),
        seeds: [1, 2],
      })),
    },
  };
}

/** An evaluation as the analysis reads it: counts, and per family what passed of what counted. */
function evaluationPoint(e: CurriculumEvaluation): EvaluationPoint {
  const families: Record<string, { passed: number; counted: number }> = {};
  for (const t of e.tasks) {
    if (isInfraOutcome(t.outcome)) continue;
    // a task key is `world/family/dN`
    const family = t.key.split("/").slice(-2)[0];
    const f = families[family] ?? { passed: 0, counted: 0 };
    families[family] = f;
    f.counted++;
    if (t.passed) f.passed++;
  }
  return {
    after_episode: e.after_episode,
    planned: e.planned,
    passed: e.passed,
    ...(e.infra ? { infra: e.infra } : {}),
    families,
  };
}

/** A stored curriculum run as the analysis reads it. */
export function strategyRunOf(
  r: Pick<CurriculumResult, "episodes" | "regression" | "heldout">,
  meta: Pick<StrategyRun, "world" | "strategy" | "seed" | "budget" | "evalEvery">,
): StrategyRun {
  return {
    ...meta,
    episodes: r.episodes.map((e) => ({ index: e.index, family: e.family, difficulty: e.difficulty })),
    regression: r.regression.map(evaluationPoint),
    heldout: r.heldout.map(evaluationPoint),
  };
}

function list(text: string, what: string): string[] {
  const items = text
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  if (!items.length) throw configError("bad_flag", `${what} is empty`);
  return items;
}

interface RunEntry {
  id: string;
  agent: string;
  run: StrategyRun;
}

const pct = (x: number) => (Number.isFinite(x) ? `${Math.round(100 * x)}%` : "-");
const ratioText = (r: { estimate: number | null; lo: number | null; hi: number | null; reason?: string }) =>
  r.estimate === null
    ? `n/a (${r.reason})`
    : `${r.estimate.toFixed(2)} [${(r.lo as number).toFixed(2)}, ${(r.hi as number).toFixed(2)}]`;

/** The compact table: per world, each strategy's curves, episodes to the target, area, shares. */
export function renderTrainCurriculum(c: StrategyComparison, heldout: Record<string, string[]>): string {
  const out: string[] = [];
  for (const w of c.worlds) {
    out.push(
      `${w.world}: ${w.budget} episodes per run, evaluated every ${w.evalEvery}, seeds ${w.seeds.join(",")}; held out: ${(heldout[w.world] ?? []).join(", ") || "none"}`,
    );
    for (const s of w.strategies) {
      const curve = (points: typeof s.regression) =>
        points.map((p) => `${p.after}:${pct(p.mean)}`).join(" ") || "-";
      out.push(`  ${s.strategy}${s.default ? " (default)" : ""}`);
      out.push(`    regression (mean of ${s.seeds.length} seeds) ${curve(s.regression)}`);
      const last = s.regression[s.regression.length - 1];
      if (last) out.push(`      at ${last.after}: ${pct(last.mean)} [${pct(last.lo)}, ${pct(last.hi)}]`);
      if (s.heldout.length) out.push(`    held out ${curve(s.heldout)}`);
      out.push(
        `    episodes to ${pct(c.target)}: ${s.episodesToTarget.map((t) => `${t.censored ? ">" : ""}${t.episodes}`).join(" ")} (${s.reached}/${s.episodesToTarget.length} reached)`,
      );
      out.push(
        `    area under the regression curve ${s.auc.mean.toFixed(3)} [${s.auc.lo.toFixed(3)}, ${s.auc.hi.toFixed(3)}]`,
      );
      const finals = Object.entries(s.families)
        .map(([f, points]) => `${f} ${pct(points[points.length - 1]?.mean ?? Number.NaN)}`)
        .join(", ");
      if (finals) out.push(`    last evaluation per family: ${finals}`);
      const windows = s.shares;
      const picks = [...new Set([0, Math.floor((windows.length - 1) / 2), windows.length - 1])].filter(
        (i) => i >= 0,
      );
      for (const i of picks) {
        const win = windows[i];
        const top = Object.entries(win.family)
          .sort((a, b) => b[1] - a[1])
          .map(([f, v]) => `${f} ${pct(v)}`)
          .join(", ");
        out.push(`    share ${win.from}-${win.to}: ${top}`);
      }
    }
    for (const v of w.comparisons) {
      const e = v.episodesToTarget;
      out.push(
        `  ${v.strategy} ÷ ${v.baseline}: episodes to ${pct(c.target)} ${ratioText(e)}${e.censoredPairs ? ` (${censoringNote(e)})` : ""}; area ${ratioText(v.auc)}; area difference ${v.aucDifference.estimate.toFixed(3)} [${v.aucDifference.lo.toFixed(3)}, ${v.aucDifference.hi.toFixed(3)}]`,
      );
    }
  }
  return out.join("\n");
}

/** `proving train curriculum`. */
export async function trainCurriculumCommand(flags: TrainCurriculumFlags, gym: Gym): Promise<void> {
  const worlds = (flags.world?.length ? flags.world : DEFAULT_TRAIN_WORLDS).map((w) => gym.world(w));
  const strategies = list(flags.strategies ?? `${DEFAULT_STRATEGY},uniform`, "--strategies");
  for (const s of strategies)
    if (!(STRATEGIES as readonly string[]).includes(s))
      throw configError(
        "bad_flag",
        `--strategies: unknown strategy "${s}" (known: ${STRATEGIES.join(", ")})`,
      );
  const seeds = list(flags.seeds, "--seeds").map((s) => {
    const n = Number(s);
    if (!Number.isInteger(n)) throw configError("bad_flag", `--seeds: "${s}" is not an integer`);
    return n;
  });
  if (!(flags.target > 0 && flags.target <= 1))
    throw configError("bad_flag", `--target is a pass rate in (0, 1], got ${flags.target}`);
  if (flags.learner !== "q" && flags.learner !== "pg")
    throw configError("bad_flag", `--learner must be q or pg, got "${flags.learner}"`);
  const extra = new URLSearchParams(flags.learnerOptions ?? "");
  if (extra.has("seed")) throw configError("bad_flag", "--learner-options: the seed is each run's (--seeds)");
  const heldout: Record<string, string[]> = {};
  for (const w of worlds) {
    const asked = flags.heldout ?? [];
    heldout[w.id] = asked.length
      ? asked.filter((f) => w.families.some((x) => x.name === f))
      : [w.families[w.families.length - 1].name];
  }
  for (const f of flags.heldout ?? [])
    if (!worlds.some((w) => w.families.some((x) => x.name === f)))
      throw configError("unknown_family", `--heldout ${f}: no world given has that family`);
  const id =
    flags.id ??
    `train-cur-${new Date()
      .toISOString()
      .replace(/[-:.TZ]/g, "")
      .slice(0, 14)}`;
  const file = storePath(flags.store);
  const history = await openCurriculumStore(file);
  const interrupt = interruptOnSignals();
  const entries: RunEntry[] = [];
  let interrupted = false;
  try {
    await withStore(file, "write", async (store) => {
      const total = worlds.length * strategies.length * seeds.length;
      for (const world of worlds) {
        const split = trainingSplit(world, heldout[world.id]);
        for (const strategy of strategies)
          for (const seed of seeds) {
            const query = new URLSearchParams({ seed: String(seed) });
            for (const [k, v] of extra) query.append(k, v);
            const agent = `learner:${flags.learner}?${query}`;
            const runId = `${id}/${world.id}/${strategy}/s${seed}`;
            const config = curriculumConfig({
              id: runId,
              split,
              agent,
              episodes: flags.episodes,
              strategy,
              seed,
              evalEvery: flags.evalEvery,
              snapshotEvery: flags.evalEvery,
              ...(flags.difficulty === false ? { difficulty: false as const } : {}),
            });
            const started = Date.now();
            const result = await runCurriculum(config, { gym, store, history, signal: interrupt.signal });
            const run = strategyRunOf(result, {
              world: world.id,
              strategy,
              seed,
              budget: flags.episodes,
              evalEvery: flags.evalEvery,
            });
            entries.push({ id: runId, agent, run });
            const last = result.regression[result.regression.length - 1];
            process.stderr.write(
              `[${entries.length}/${total}] ${runId}: ${result.ranNow} episode(s) now, ${result.episodes.length} in all; regression ${last ? pct(passRateOf(last) ?? Number.NaN) : "-"} (${((Date.now() - started) / 1000).toFixed(1)} s)\n`,
            );
            if (result.interrupted) {
              interrupted = true;
              return;
            }
          }
      }
    });
    if (interrupted) {
      process.stderr.write(`proving: interrupted; run the same command with --id ${id} to resume.\n`);
      process.exitCode = interrupt.exitCode ?? 130;
      return;
    }
    const comparison = compareStrategies(
      entries.map((e) => e.run),
      { defaultStrategy: DEFAULT_STRATEGY, target: flags.target },
    );
    let report: string | undefined;
    if (flags.report) {
      const target = flags.report;
      const [{ writeHtmlReport }, { learningCurvesSection }] = await Promise.all([
        import("../../report/html/build-report.ts"),
        import("../../report/html/learning-curves-section.ts"),
      ]);
      const section = await learningCurvesSection(comparison, { id });
      // the page's headline is the first run's regression evaluations; the section covers every run
      report = (
        await withStore(file, "read", (store) =>
          writeHtmlReport(store, `${entries[0].id}/regression`, target, { sections: [section] }),
        )
      ).path;
    }
    const { schemaVersion, ...analysis } = comparison;
    if (flags.json)
      printJson({
        schemaVersion,
        id,
        settings: {
          worlds: worlds.map((w) => w.id),
          strategies,
          learner: flags.learner,
          learner_options: flags.learnerOptions ?? "",
          episodes: flags.episodes,
          eval_every: flags.evalEvery,
          seeds,
          heldout,
          difficulty: flags.difficulty !== false,
        },
        runs: entries.map((e) => ({
          id: e.id,
          agent: e.agent,
          world: e.run.world,
          strategy: e.run.strategy,
          seed: e.run.seed,
          episodes: e.run.episodes.length,
          regression: e.run.regression.map((p) => ({
            after: p.after_episode,
            passed: p.passed,
            counted: p.planned - (p.infra ?? 0),
            rate: passRateOf(p) ?? null,
          })),
          heldout: e.run.heldout.map((p) => ({
            after: p.after_episode,
            passed: p.passed,
            counted: p.planned - (p.infra ?? 0),
            rate: passRateOf(p) ?? null,
          })),
          episodes_to_target: episodesToTarget(e.run, flags.target),
          auc: areaUnderCurve(e.run),
        })),
        ...analysis,
        report: report ?? null,
      });
    else {
      process.stdout.write(`${renderTrainCurriculum(comparison, heldout)}\n`);
      if (report) process.stdout.write(`report: ${report}\n`);
    }
  } finally {
    interrupt.dispose();
    await history.close();
  }
}
