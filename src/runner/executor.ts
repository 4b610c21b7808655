import type { TrialRecord, TrialSpec } from "../core/contracts.ts";
import { bareWorld } from "../core/environment-factory.ts";
import { internalError } from "../core/errors.ts";
import { manifestRows, type TrialSummary } from "../core/trial-summary.ts";
import type { TrialAdmission } from "./admission.ts";
import { EnvironmentPool } from "./env-pool.ts";
import { type RecordedTrial, replayForLearner } from "./learner-replay.ts";
import { type PlannedTrialContext, runPlannedTrial } from "./planned-trial.ts";
import { countTrial, newProgress, type Progress } from "./progress.ts";
import type { ExperimentEntry, TrialRecorder } from "./recorder.ts";
import type { TrialScheduler } from "./trial-scheduler.ts";

/** A planned experiment: its entry and its manifest (every trial it will ever count). */
export interface ExperimentPlan {
  experiment: ExperimentEntry;
  manifest: readonly TrialSpec[];
}

export interface ExecuteOptions extends Omit<PlannedTrialContext, "pool"> {
  recorder: TrialRecorder;
  scheduler: TrialScheduler;
  /** Let each worker reuse its world instances across trials (reset between them). Default: off. */
  reuseEnvironments?: boolean;
  /** Stop starting new trials; what did not run stays `missing`. */
  signal?: AbortSignal;
  /** Each trial starts once admitted (a remote server's sessions), before its wall-clock budget does. */
  admission?: TrialAdmission;
  /**
   * An agent learns across the trials (a learner, trials one at a time in manifest order): before the
   * rest run, it plays the trials already recorded again, in memory, so a resumed run continues with
   * the policy it had (`replayForLearner`).
   */
  replayRecorded?: boolean;
  /** Each record, once handed to the recorder; `recorded` is false when the trial had a record already. */
  onTrial?: (record: TrialRecord, progress: Progress, recorded: boolean) => void;
}

export interface ExecuteResult {
  /** Planned trials already recorded when the run opened (what it skipped). */
  recordedBefore: ReadonlySet<string>;
  /** Trials run by this call, in this process. */
  ranNow: number;
  /** Stopped with planned trials still missing (an abort, a lost lease, a scheduler that handed them off). */
  interrupted: boolean;
  /** One row per planned trial, in manifest order (read from the recorder); trials without a record are `missing`. */
  rows(): Promise<TrialSummary[]>;
}

/**
 * The one trial pipeline. Opens the experiment with its plan through the recorder (the manifest is
 * written before any trial runs), lets the scheduler run every planned trial that has no record yet
 * (each through `runPlannedTrial`, each record through the recorder, write-once), and closes the run
 * with its status — `completed` when every planned trial has a record, `interrupted` otherwise, also
 * when the recorder or the scheduler fails (the error is rethrown; a resume runs what is missing).
 */
export async function executePlan(plan: ExperimentPlan, opts: ExecuteOptions): Promise<ExecuteResult> {
  const { recorder, scheduler, reuseEnvironments, signal, onTrial, replayRecorded, admission, ...context } =
    opts;
  const recordedBefore = await recorder.open(plan.experiment, plan.manifest);
  const todo = plan.manifest.filter((s) => !recordedBefore.has(s.id));
  const progress = newProgress(plan.manifest.length, recordedBefore.size);
  const pools = new Map<number, EnvironmentPool>();
  const poolOf = (slot: number) => {
    const pool = pools.get(slot) ?? new EnvironmentPool(opts.environment ?? bareWorld);
    pools.set(slot, pool);
    return pool;
  };
  let ranNow = 0;
  const runOne = async (spec: TrialSpec, slot: number) => {
    const exit = await admission?.enter();
    let record: TrialRecord;
    try {
      record = await runPlannedTrial(spec, reuseEnvironments ? { ...context, pool: poolOf(slot) } : context);
    } finally {
      exit?.();
    }
    ranNow++;
    countTrial(progress, record.outcome, Boolean(record.verdict?.violations.length));
    const recorded = await recorder.record(record);
    onTrial?.(record, progress, recorded);
  };
  const stopped = () => Boolean(signal?.aborted) || Boolean(recorder.lost);
  let handedOff = false;
  try {
    if (replayRecorded && recordedBefore.size > 0) await relearn(plan, recordedBefore, recorder, context);
    handedOff = (await scheduler.run(todo, runOne, stopped)) === "handed_off";
    await recorder.flush();
  } catch (err) {
    await recorder.close("interrupted").catch(() => undefined);
    throw err;
  }
  const rows = async () => manifestRows(plan.manifest, await recorder.summaries()).rows;
  // every trial ran here, or (a queue's workers ran them) the recorder has them all
  const interrupted = ranNow < todo.length && (await rows()).some((r) => r.outcome === "missing");
  await recorder.close(!interrupted ? "completed" : handedOff ? "handed_off" : "interrupted");
  return { recordedBefore, ranNow, interrupted, rows };
}

/** The learner plays the trials recorded before this run opened again, in manifest order, in memory. */
async function relearn(
  plan: ExperimentPlan,
  recordedBefore: ReadonlySet<string>,
  recorder: TrialRecorder,
  context: PlannedTrialContext,
): Promise<void> {
  const outcomes = new Map<string, string>();
  for (const s of await recorder.summaries()) outcomes.set(s.trialId, s.outcome);
  const recorded: RecordedTrial[] = [];
  for (const spec of plan.manifest) {
    const outcome = outcomes.get(spec.id);
    if (outcome !== undefined && recordedBefore.has(spec.id)) recorded.push({ spec, outcome });
  }
  await replayForLearner(
    recorded,
    (spec) => runPlannedTrial(spec, context),
    (t, record) =>
      internalError(
        "run_history_diverged",
        `${plan.experiment.id}: the learner playing recorded trial ${t.spec.id} again ended ${record.outcome}, the record says ${t.outcome} (the world or the agent is not deterministic)`,
      ),
  );
}
