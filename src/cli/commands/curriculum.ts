import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import type { Command } from "commander";
import { configError } from "../../core/errors.ts";
import { summarizeTrial } from "../../core/trial-summary.ts";
import {
  approvedItems,
  type CurriculumResult,
  type CurriculumStore,
  createCurriculum,
  curriculumConfig,
  curriculumHealth,
  defaultSplit,
  fillPool,
  openCurriculumStore,
  parseHorizon,
  parseSplitFile,
  poolRequests,
  type ReviewItem,
  readCurriculum,
  recordReview,
  renderItem,
  runCurriculum,
  runSplit,
  type SplitFile,
  sampleItems,
  splitName,
  splitWithVariants,
  taskReviewItems,
  VARIANT_POOL,
  variantKnownGood,
  variantReviewItems,
} from "../../curriculum/index.ts";
import type { Gym } from "../../gym/gym.ts";
import { defaultReportPath, writeHtmlReport } from "../../report/html/build-report.ts";
import { curriculumSection } from "../../report/html/curriculum-section.ts";
import { summarizeExperiment } from "../../report/summary.ts";
import { renderTerminalReport } from "../../report/terminal.ts";
import { interruptOnSignals } from "../../runner/interrupt.ts";
import { isPostgresUrl } from "../../store/store-url.ts";
import { collect, intOption, printJson, storePath, withStore } from "../context.ts";
import type { GymSource } from "../gym-source.ts";

export interface CurriculumFlags {
  world?: string[];
  agent?: string;
  episodes?: number;
  strategy?: string;
  seed?: number;
  evalEvery?: number;
  id?: string;
  splits?: string;
  snapshotEvery?: number;
  horizon?: string;
  difficulty?: boolean;
  maxSteps?: number;
  timeoutMs?: number;
  store?: string;
  json?: boolean;
  storedVariants?: boolean;
  pool?: number;
  poolId?: string;
  poolTimeoutMs?: number;
  requireReview?: boolean;
}

/** Reads a split file (YAML or JSON); `unreadable_file` / `bad_split_file`. */
export function readSplitFlag(file: string): SplitFile {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (err) {
    throw configError("unreadable_file", `cannot read ${file}: ${(err as Error).message}`);
  }
  return parseSplitFile(text, file);
}

/**
 * The store of the curriculum tables, as `--store` names it: a SQLite file (resolved) or a
 * `postgres://` URL. `mustExist`: a missing SQLite file is `no_store`, not a new empty store.
 */
function curriculumStorePath(opt: string | undefined, mustExist = false): string {
  const location = storePath(opt);
  if (mustExist && !isPostgresUrl(location) && !fs.existsSync(location))
    throw configError("no_store", `no store at ${location} (pass --store PATH)`);
  return location;
}

/** The `curriculum run --json` / `curriculum show --json` document. */
export function curriculumJson(r: Omit<CurriculumResult, "ranNow" | "interrupted">) {
  return {
    id: r.id,
    strategy: r.strategy,
    manifest_hash: r.manifest_hash,
    episodes: r.episodes.map((e) => ({
      index: e.index,
      world: e.world,
      ...(e.variant ? { variant: e.variant } : {}),
      family: e.family,
      difficulty: e.difficulty,
      split: e.split,
      seed: e.seed,
      outcome: e.outcome,
      passed: e.passed,
      trial: e.trial,
    })),
    regression: r.regression.map(({ tasks: _t, ...e }) => e),
    heldout: r.heldout.map(({ tasks: _t, ...e }) => e),
    snapshot: r.snapshot,
  };
}

/** Share of episodes per family in consecutive windows of `width` episodes. */
export function familyShares(r: Pick<CurriculumResult, "episodes">, width: number) {
  const out: { from: number; to: number; share: Record<string, number> }[] = [];
  for (let from = 1; from <= r.episodes.length; from += width) {
    const slice = r.episodes.filter((e) => e.index >= from && e.index < from + width);
    const share: Record<string, number> = {};
    for (const e of slice) share[e.family] = (share[e.family] ?? 0) + 1 / slice.length;
    out.push({ from, to: from + slice.length - 1, share });
  }
  return out;
}

function renderSummary(r: Omit<CurriculumResult, "ranNow" | "interrupted">): string {
  const lines = [
    `curriculum ${r.id} (${r.strategy}): ${r.episodes.length} episodes, ${r.episodes.filter((e) => e.passed).length} passed`,
  ];
  lines.push(`regression manifest ${r.manifest_hash || "(not evaluated yet)"}`);
  for (const e of r.regression)
    lines.push(`  after episode ${e.after_episode}: regression ${e.passed}/${e.planned}`);
  for (const e of r.heldout)
    lines.push(`  after episode ${e.after_episode}: held out ${e.passed}/${e.planned}`);
  lines.push("share of episodes per family:");
  for (const w of familyShares(r, 50)) {
    const parts = Object.entries(w.share)
      .sort((a, b) => b[1] - a[1])
      .map(([f, s]) => `${f} ${(100 * s).toFixed(0)}%`);
    lines.push(`  ${w.from}-${w.to}: ${parts.join(", ")}`);
  }
  return lines.join("\n");
}

export function registerCurriculum(program: Command, gymSource: GymSource): void {
  const curriculum = program
    .command("curriculum")
    .description("adaptive curriculum: sampled training episodes, a frozen regression split, review");

  curriculum
    .command("run")
    .description("drive an agent through N sampled episodes, evaluating the regression split every M")
    .option("--world <id>", "world of the dynamic split (repeatable; default device-support@1)", collect)
    .option("--agent <spec>", "the agent (scripted policy, ./module.mjs|.ts, kind:spec)")
    .option("--episodes <n>", "episodes in all (a resume runs what is left)", intOption("--episodes"))
    .option("--strategy <name>", "uniform | target-band | learnability | plr (default) | learning-progress")
    .option("--seed <n>", "the run's seed (sampler and episode seeds)", intOption("--seed"))
    .option(
      "--eval-every <n>",
      "evaluate the regression split every N episodes (default 50)",
      intOption("--eval-every"),
    )
    .option("--id <name>", "run id; run again with the same id to resume")
    .option("--splits <file>", "split file (YAML): regression, dynamic, heldout")
    .option(
      "--snapshot-every <n>",
      "store a sampler snapshot every N episodes (default 10)",
      intOption("--snapshot-every"),
    )
    .option("--horizon <stages>", "interaction horizon: EPISODE:MAXSTEPS pairs, e.g. 0:20,100:60")
    .option("--no-difficulty", "no per-family difficulty adjustment: the sampler picks any difficulty")
    .option("--no-stored-variants", "leave the store's accepted variants (the rigger's) out of a new run")
    .option(
      "--pool <n>",
      "pre-generate N gated tasks per key into the store (in a worker thread) and sample only those",
      intOption("--pool"),
    )
    .option(
      "--pool-id <id>",
      "the pool to sample from (default: the run id), e.g. one `curriculum review --pool` filled",
    )
    .option(
      "--pool-timeout-ms <n>",
      "a task generation taking longer fails (default 10000)",
      intOption("--pool-timeout-ms"),
    )
    .option(
      "--require-review",
      "sample only pooled tasks and stored variants approved by `curriculum review` (implies --pool 4)",
    )
    .option("--max-steps <n>", "step budget per trial", intOption("--max-steps"))
    .option("--timeout-ms <n>", "wall-clock budget per trial", intOption("--timeout-ms"))
    .option(
      "--store <path>",
      "SQLite file or postgres:// URL (default .proving/proving.db, or $PROVING_STORE)",
    )
    .option("--json", "print the run as one JSON document")
    .action(async (flags: CurriculumFlags) => {
      const gym = await gymSource();
      const file = curriculumStorePath(flags.store);
      const history = await openCurriculumStore(file);
      const interrupt = interruptOnSignals();
      try {
        const stored = flags.id ? await history.getRun(flags.id) : undefined;
        const base = stored?.config as Record<string, unknown> | undefined;
        if (!base && !flags.agent) throw configError("bad_flag", "curriculum run needs --agent");
        const declared = flags.splits
          ? readSplitFlag(flags.splits)
          : ((base?.split as SplitFile | undefined) ??
            defaultSplit((flags.world ?? ["device-support@1"]).map((w) => gym.world(w))));
        // a new run's dynamic space takes in the accepted stored variants; a resume keeps its own split
        const split =
          base || flags.storedVariants === false
            ? declared
            : splitWithVariants(declared, await history.listVariants({ status: "accepted" }), gym, {
                ...(flags.requireReview
                  ? { requireReview: true, approved: await approvedItems(history, VARIANT_POOL) }
                  : {}),
              });
        const budget = {
          ...((base?.budget as object) ?? { maxSteps: 200, maxVirtualSeconds: 86400, wallTimeoutMs: 60000 }),
        } as Record<string, number>;
        if (flags.maxSteps !== undefined) budget.maxSteps = flags.maxSteps;
        if (flags.timeoutMs !== undefined) budget.wallTimeoutMs = flags.timeoutMs;
        const config = curriculumConfig({
          ...(base ?? {}),
          id:
            flags.id ??
            `cur-${new Date()
              .toISOString()
              .replace(/[-:.TZ]/g, "")
              .slice(0, 14)}`,
          split,
          agent: flags.agent ?? (base?.agent as string),
          episodes: flags.episodes ?? (base?.episodes as number | undefined) ?? 200,
          ...(flags.strategy ? { strategy: flags.strategy } : {}),
          ...(flags.seed !== undefined ? { seed: flags.seed } : {}),
          ...(flags.evalEvery !== undefined ? { evalEvery: flags.evalEvery } : {}),
          ...(flags.snapshotEvery !== undefined ? { snapshotEvery: flags.snapshotEvery } : {}),
          ...(flags.horizon ? { horizon: parseHorizon(flags.horizon) } : {}),
          ...(flags.difficulty === false ? { difficulty: false as const } : {}),
          ...(flags.pool !== undefined || flags.requireReview
            ? {
                pool: {
                  perKey: flags.pool ?? 4,
                  ...(flags.poolId ? { id: flags.poolId } : {}),
                  ...(flags.poolTimeoutMs !== undefined ? { timeoutMs: flags.poolTimeoutMs } : {}),
                  ...(flags.requireReview ? { requireReview: true } : {}),
                },
              }
            : {}),
          budget: budget as never,
        });
        const result = await withStore(file, "write", (store) =>
          runCurriculum(config, { gym, store, history, signal: interrupt.signal }),
        );
        if (flags.json)
          printJson({ ...curriculumJson(result), ran_now: result.ranNow, interrupted: result.interrupted });
        else process.stdout.write(`${renderSummary(result)}\n`);
        if (result.interrupted) {
          process.stderr.write(
            `proving: interrupted; run \`proving curriculum run --id ${config.id}\` to resume.\n`,
          );
          process.exitCode = interrupt.exitCode ?? 130;
        }
      } finally {
        interrupt.dispose();
        await history.close();
      }
    });

  curriculum
    .command("review")
    .description(
      "spot-check new tasks (or the store's variants): show each (instruction, params, known-good trajectory), record approve/reject",
    )
    .option("--pool <id>", "the task pool to fill and review (a curriculum run id, or a name)", "review")
    .option("--variants", "review the store's accepted variants instead of pooled tasks")
    .option("--world <id>", "world whose tasks to generate (repeatable; default device-support@1)", collect)
    .option("--splits <file>", "split file whose dynamic space to generate from")
    .option(
      "--seed <n>",
      "the seeds' run seed (as `curriculum run --seed`) and the sampling seed",
      intOption("--seed"),
    )
    .option(
      "--per-key <n>",
      "tasks generated per key when filling the pool (default 2)",
      intOption("--per-key"),
    )
    .option("--sample <n>", "how many unreviewed items to show (default 5)", intOption("--sample"))
    .option("--approve <id>", "approve an item (repeatable)", collect)
    .option("--reject <id>", "reject an item (repeatable)", collect)
    .option("--note <text>", "the note recorded with --approve/--reject")
    .option("--store <path>", "SQLite file or postgres:// URL")
    .option("--json", "print the items (and decisions) as JSON")
    .action(async (flags: ReviewFlags) => {
      const gym = await gymSource();
      const file = curriculumStorePath(flags.store);
      const history = await openCurriculumStore(file);
      try {
        const out = await reviewCommand(flags, gym, history);
        if (flags.json) printJson(out);
      } finally {
        await history.close();
      }
    });

  curriculum
    .command("report")
    .description(
      "write the HTML report of a stored curriculum run, with its curriculum section and health checks",
    )
    .argument("<name>", "curriculum run id")
    .option("--out <file>", "where to write it (default reports/NAME.html beside the store)")
    .option(
      "--window <n>",
      "episodes per window (round) of the charts and checks (default 25)",
      intOption("--window"),
    )
    .option("--store <path>", "SQLite file or postgres:// URL")
    .option("--json", "print {path, bytes, health} as JSON")
    .action(
      async (name: string, flags: { out?: string; window?: number; store?: string; json?: boolean }) => {
        const file = curriculumStorePath(flags.store, true);
        const history = await openCurriculumStore(file);
        try {
          const result = await readCurriculum(history, name);
          const opts = flags.window !== undefined ? { window: flags.window } : {};
          // beside a SQLite file; under the working directory for a Postgres store
          const out =
            flags.out ??
            (isPostgresUrl(file) ? path.resolve("reports", `${name}.html`) : defaultReportPath(file, name));
          const written = await withStore(file, "read", (store) =>
            writeHtmlReport(store, name, out, { sections: [curriculumSection(result, opts)] }),
          );
          const health = curriculumHealth(result, opts);
          if (flags.json) printJson({ path: written.path, bytes: written.bytes, health });
          else {
            process.stdout.write(`report: ${written.path}\n`);
            for (const h of health) process.stdout.write(`  ${h.status} ${h.check}: ${h.detail}\n`);
          }
        } finally {
          await history.close();
        }
      },
    );

  curriculum
    .command("show")
    .description("print a stored curriculum run's summary (the same document as `curriculum run --json`)")
    .argument("<name>", "curriculum run id")
    .option("--store <path>", "SQLite file or postgres:// URL")
    .option("--json", "print one JSON document")
    .action(async (name: string, flags: { store?: string; json?: boolean }) => {
      const file = curriculumStorePath(flags.store, true);
      const history = await openCurriculumStore(file);
      try {
        const result = await readCurriculum(history, name);
        if (flags.json) printJson(curriculumJson(result));
        else process.stdout.write(`${renderSummary(result)}\n`);
      } finally {
        await history.close();
      }
    });
}

export interface ReviewFlags {
  pool: string;
  variants?: boolean;
  world?: string[];
  splits?: string;
  seed?: number;
  perKey?: number;
  sample?: number;
  approve?: string[];
  reject?: string[];
  note?: string;
  store?: string;
  json?: boolean;
}

/**
 * `proving curriculum review`: fills the pool (new tasks, gated, off the main thread) or reads the
 * store's variants, records the decisions of `--approve/--reject`, or — when stdin is a terminal and
 * none is given — asks about each sampled unreviewed item; otherwise shows the sample.
 */
export async function reviewCommand(flags: ReviewFlags, gym: Gym, history: CurriculumStore) {
  const now = () => new Date();
  const poolId = flags.variants ? VARIANT_POOL : flags.pool;
  let items: ReviewItem[];
  if (flags.variants) {
    items = await variantReviewItems(history, await history.listVariants({ status: "accepted" }), (v) =>
      variantKnownGood(gym, v),
    );
  } else {
    const split = flags.splits
      ? readSplitFlag(flags.splits)
      : defaultSplit((flags.world ?? ["device-support@1"]).map((w) => gym.world(w)));
    const c = createCurriculum(gym, { split, seed: flags.seed ?? 1 });
    await fillPool(poolRequests(c, flags.perKey ?? 2), {
      gym,
      cache: history,
      poolId,
      pool: { perKey: flags.perKey ?? 2 },
      now,
    });
    items = await taskReviewItems(history, poolId);
  }
  const known = new Set(items.map((i) => i.id));
  const decisions: { id: string; decision: "approve" | "reject"; note: string }[] = [];
  const decide = async (id: string, decision: "approve" | "reject", note: string) => {
    await recordReview(history, poolId, id, decision, { note, now, known });
    decisions.push({ id, decision, note });
    items = items.map((i) =>
      i.id === id ? { ...i, decision: { decision, note, reviewedAt: now().toISOString() } } : i,
    );
  };
  for (const id of flags.approve ?? []) await decide(id, "approve", flags.note ?? "");
  for (const id of flags.reject ?? []) await decide(id, "reject", flags.note ?? "");
  const sample = sampleItems(items, { sample: flags.sample ?? 5, seed: flags.seed ?? 1 });
  if (decisions.length === 0 && process.stdin.isTTY && !flags.json) {
    const rl = readline.createInterface({ input: process.stdin, output: process.stdout });
    // lines typed ahead of a prompt are kept, not dropped (an async iterator buffers them)
    const lines = rl[Symbol.asyncIterator]();
    const ask = async (prompt: string) => {
      process.stdout.write(prompt);
      const line = await lines.next();
      return line.done ? undefined : String(line.value);
    };
    try {
      for (const item of sample) {
        process.stdout.write(`\n${renderItem(item)}\n`);
        const answer = (await ask("approve, reject or skip? [a/r/s/q] "))?.trim().toLowerCase() ?? "q";
        if (answer.startsWith("q")) break;
        if (!answer.startsWith("a") && !answer.startsWith("r")) continue;
        const note = (await ask("note: ")) ?? "";
        await decide(item.id, answer.startsWith("a") ? "approve" : "reject", note.trim());
      }
    } finally {
      rl.close();
    }
  } else if (!flags.json) {
    for (const d of decisions) process.stdout.write(`${d.decision} ${d.id}${d.note ? ` (${d.note})` : ""}\n`);
    if (decisions.length === 0) {
      const open = items.filter((i) => !i.decision).length;
      process.stdout.write(`${poolId}: ${items.length} items, ${open} unreviewed; a sample:\n`);
      for (const item of sample) process.stdout.write(`\n${renderItem(item)}\n`);
    }
  }
  return {
    pool: poolId,
    items: items.length,
    unreviewed: items.filter((i) => !i.decision).length,
    sample,
    decisions,
  };
}

/** The flags of `proving run --split NAME` it reads. */
export interface SplitRunFlags {
  split: string;
  splits?: string;
  agent?: string[];
  world?: string[];
  seed?: number;
  trials?: number;
  id?: string;
  maxSteps?: number;
  timeoutMs?: number;
  store?: string;
  json?: boolean;
}

/**
 * `proving run --split NAME`: runs one split of the split file (`--splits FILE`, default the built-in
 * default split of `--world`) for one agent, recorded as an experiment; prints the report, or `--json`
 * `{experiment: {id, split, manifest_hash}, planned, outcomes, pass_rate, trials: [...]}`.
 */
export async function runSplitCommand(flags: SplitRunFlags, gym: Gym): Promise<string> {
  const name = splitName(flags.split);
  const split = flags.splits
    ? readSplitFlag(flags.splits)
    : defaultSplit((flags.world ?? ["device-support@1"]).map((w) => gym.world(w)));
  if ((flags.agent?.length ?? 0) !== 1)
    throw configError("bad_flag", "run --split takes exactly one --agent");
  const worlds = [...new Set(split.dynamic.worlds)].map((w) => gym.world(w));
  const agent = await gym.resolveAgent((flags.agent as string[])[0], { cwd: process.cwd(), worlds });
  const experimentId =
    flags.id ??
    `split-${name}-${new Date()
      .toISOString()
      .replace(/[-:.TZ]/g, "")
      .slice(0, 14)}`;
  const first = flags.seed ?? 1;
  const seeds = Array.from({ length: flags.trials ?? 1 }, (_, i) => first + i);
  const budget = {
    maxSteps: flags.maxSteps ?? 200,
    maxVirtualSeconds: 86400,
    wallTimeoutMs: flags.timeoutMs ?? 60000,
  };
  const interrupt = interruptOnSignals();
  try {
    const result = await withStore(flags.store, "write", (store) =>
      runSplit(split, name, { gym, agent, experimentId, budget, seeds, store, signal: interrupt.signal }),
    );
    const trials = result.records.map(summarizeTrial);
    const summary = summarizeExperiment(trials);
    if (flags.json) {
      printJson({
        experiment: {
          id: experimentId,
          split: name,
          split_file: split.name,
          ...(result.manifestHash ? { manifest_hash: result.manifestHash } : {}),
        },
        planned: summary.planned,
        outcomes: summary.outcomes,
        pass_rate: summary.pass_rate,
        violations: summary.violations,
        trials: trials.map((t) => ({
          id: t.trialId,
          agent: t.agent,
          world: t.world,
          ...(t.variantId ? { variant: t.variantId } : {}),
          family: t.family,
          difficulty: t.difficulty,
          seed: t.seed,
          outcome: t.outcome,
          passed: t.outcome === "passed",
        })),
      });
    } else {
      const head = result.manifestHash
        ? `split ${name} of ${split.name}, manifest ${result.manifestHash}\n`
        : `split ${name} of ${split.name}\n`;
      process.stdout.write(`${head}${renderTerminalReport(experimentId, summary)}\n`);
    }
    return experimentId;
  } finally {
    interrupt.dispose();
  }
}
