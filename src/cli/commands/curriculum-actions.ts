/**
 * What `proving curriculum ...` and `proving run --split` do, loaded only when one runs: the
 * curriculum, its tables and the HTML report stay out of every other command.
 */
import fs from "node:fs";
import readline from "node:readline";
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
import { budgetWithFlags } from "../agent-store-options.ts";
import { printJson, storePath, withStore } from "../context.ts";
import type {
  CurriculumFlags,
  CurriculumReportFlags,
  ReviewFlags,
  SplitRunFlags,
} from "./curriculum-flags.ts";
import { reportExperimentOf } from "./serve-curriculum.ts";
import { readSplitFlag } from "./split-flag.ts";
import { trialJson } from "./trial-json.ts";

/** The per-trial budget of a curriculum episode and a split run, before `--max-steps` / `--timeout-ms`. */
const TRIAL_BUDGET = { maxSteps: 200, maxVirtualSeconds: 86400, wallTimeoutMs: 60000 };

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
    ...(r.infra.length
      ? {
          infra: r.infra.map((e) => ({
            index: e.index,
            attempt: e.attempt,
            family: e.family,
            difficulty: e.difficulty,
            seed: e.seed,
            outcome: e.outcome,
            trial: e.trial,
          })),
        }
      : {}),
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
  if (r.infra.length)
    lines.push(
      `${r.infra.length} infrastructure attempt(s) retried (not episodes; the curriculum never saw them)`,
    );
  lines.push(`regression manifest ${r.manifest_hash || "(not evaluated yet)"}`);
  for (const e of r.regression)
    lines.push(
      `  after episode ${e.after_episode}: regression ${e.passed}/${e.planned - (e.infra ?? 0)}${e.infra ? ` (${e.infra} infra, not counted)` : ""}`,
    );
  for (const e of r.heldout)
    lines.push(
      `  after episode ${e.after_episode}: held out ${e.passed}/${e.planned - (e.infra ?? 0)}${e.infra ? ` (${e.infra} infra, not counted)` : ""}`,
    );
  lines.push("share of episodes per family:");
  for (const w of familyShares(r, 50)) {
    const parts = Object.entries(w.share)
      .sort((a, b) => b[1] - a[1])
      .map(([f, s]) => `${f} ${(100 * s).toFixed(0)}%`);
    lines.push(`  ${w.from}-${w.to}: ${parts.join(", ")}`);
  }
  return lines.join("\n");
}

/** `proving curriculum run`: a new run, or the rest of the stored run `--id` names. */
export async function curriculumRunCommand(given: CurriculumFlags, gym: Gym): Promise<void> {
  // --policy FILE|ID: the agent is that saved learner policy, played frozen
  const flags = given.policy
    ? {
        ...given,
        agent: await (await import("./policy-flag.ts")).policyAgentSpec(given.policy, {
          ...(given.store ? { store: given.store } : {}),
          agent: given.agent ? [given.agent] : [],
        }),
      }
    : given;
  const file = curriculumStorePath(flags.store);
  const history = await openCurriculumStore(file);
  const interrupt = interruptOnSignals();
  try {
    const stored = flags.id ? await history.getRun(flags.id) : undefined;
    const base = stored?.config as Record<string, unknown> | undefined;
    if (!base && !flags.agent) throw configError("bad_flag", "curriculum run needs --agent");
    if (base?.served !== undefined) {
      throw configError(
        "curriculum_conflict",
        `curriculum run ${flags.id} is served (its episodes are played by proving serve's clients): continue it with \`proving serve --curriculum --curriculum-id ${flags.id}\``,
      );
    }
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
    const budget = budgetWithFlags({ ...((base?.budget as object) ?? TRIAL_BUDGET) }, flags);
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
    const policy = result.policy ? { policy: result.policy } : {};
    if (flags.json)
      printJson({
        ...curriculumJson(result),
        ran_now: result.ranNow,
        interrupted: result.interrupted,
        ...policy,
      });
    else process.stdout.write(`${renderSummary(result)}\n`);
    if (result.policy && !flags.json)
      process.stderr.write(
        `proving: the learner ends with the policy ${result.policy} (\`proving policies ${result.policy}\`)\n`,
      );
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
}

/** `proving curriculum review` on the store `--store` names. */
export async function curriculumReviewCommand(flags: ReviewFlags, gym: Gym): Promise<void> {
  const file = curriculumStorePath(flags.store);
  const history = await openCurriculumStore(file);
  try {
    const out = await reviewCommand(flags, gym, history);
    if (flags.json) printJson(out);
  } finally {
    await history.close();
  }
}

/** `proving curriculum report NAME`: the HTML report with the curriculum section, and the health checks. */
export async function curriculumReportCommand(name: string, flags: CurriculumReportFlags): Promise<void> {
  const file = curriculumStorePath(flags.store, true);
  const history = await openCurriculumStore(file);
  try {
    const result = await readCurriculum(history, name);
    const opts = flags.window !== undefined ? { window: flags.window } : {};
    // beside a SQLite file; under the working directory for a Postgres store
    const out = flags.out ?? defaultReportPath(file, name);
    const written = await withStore(file, "read", async (store) =>
      writeHtmlReport(store, await reportExperimentOf(store, result), out, {
        sections: [curriculumSection(result, opts)],
      }),
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
}

/** `proving curriculum show NAME`. */
export async function curriculumShowCommand(
  name: string,
  flags: { store?: string; json?: boolean },
): Promise<void> {
  const file = curriculumStorePath(flags.store, true);
  const history = await openCurriculumStore(file);
  try {
    const result = await readCurriculum(history, name);
    if (flags.json) printJson(curriculumJson(result));
    else process.stdout.write(`${renderSummary(result)}\n`);
  } finally {
    await history.close();
  }
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
  const budget = budgetWithFlags(TRIAL_BUDGET, flags);
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
        trials: trials.map(trialJson),
      });
    } else {
      const head = result.manifestHash
        ? `split ${name} of ${split.name}, manifest ${result.manifestHash}\n`
        : `split ${name} of ${split.name}\n`;
      process.stdout.write(`${head}${renderTerminalReport(experimentId, summary, { trials })}\n`);
    }
    return experimentId;
  } finally {
    interrupt.dispose();
  }
}
