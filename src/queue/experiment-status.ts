import type { Outcome } from "../core/contracts.ts";
import type { ExperimentStatus, Store } from "../store/store.ts";
import { unknownExperiment } from "../store/store-errors.ts";

export interface WorkerTally {
  worker: string;
  /** Attempts whose record won. */
  recorded: number;
  /** Attempts running now on trials that have no record yet. */
  inFlight: number;
  /** Attempts that failed (a throw; a crash shows up as a retry on another attempt). */
  failed: number;
  /** Attempts that finished after another attempt's record (a redelivered or stale job). */
  duplicate: number;
  /** Attempts whose worker died or lost the trial (SIGKILL, out of memory, past its lock) before it ended them. */
  abandoned: number;
}

export interface QueuedExperimentStatus {
  experimentId: string;
  status: ExperimentStatus;
  planned: number;
  recorded: number;
  /** Unrecorded trials whose latest attempt is running. */
  inFlight: number;
  /** Planned, not recorded, not in flight. */
  waiting: number;
  outcomes: Partial<Record<Outcome, number>>;
  /** Attempts abandoned by a dead or stalled worker (all workers). */
  abandoned: number;
  /** The process holding the experiment's lease (a run, resume or coordinator following it), if live. */
  lease?: { holder: string; expiresAt: string };
  workers: WorkerTally[];
}

/** `proving status NAME`: planned, recorded, in flight and per worker, from the store (the ledger) alone. */
export async function queuedExperimentStatus(
  store: Store,
  experimentId: string,
  nowMs: number = Date.now(),
): Promise<QueuedExperimentStatus> {
  const experiment = await store.getExperiment(experimentId);
  if (!experiment) throw unknownExperiment(experimentId);
  const planned = (await store.getManifest(experimentId)).length;
  const trials = await store.listTrials(experimentId);
  const recordedIds = new Set(trials.map((t) => t.trialId));
  const outcomes: Partial<Record<Outcome, number>> = {};
  for (const t of trials) outcomes[t.outcome] = (outcomes[t.outcome] ?? 0) + 1;
  const attempts = await store.listAttempts(experimentId);
  const lease = await store.getLease(experimentId);
  const latest = new Map<string, (typeof attempts)[number]>();
  for (const a of attempts) latest.set(a.trialId, a); // oldest first, so the last one wins
  const tallies = new Map<string, WorkerTally>();
  const tally = (worker: string) => {
    let t = tallies.get(worker);
    if (!t) {
      t = { worker, recorded: 0, inFlight: 0, failed: 0, duplicate: 0, abandoned: 0 };
      tallies.set(worker, t);
    }
    return t;
  };
  let inFlight = 0;
  let abandoned = 0;
  for (const a of attempts) {
    const t = tally(a.worker);
    if (a.status === "abandoned") {
      t.abandoned++;
      abandoned++;
    } else if (a.status === "recorded") t.recorded++;
    else if (a.status === "failed") t.failed++;
    else if (a.status === "duplicate") t.duplicate++;
    else if (a.status === "running" && !recordedIds.has(a.trialId) && latest.get(a.trialId) === a) {
      t.inFlight++;
      inFlight++;
    }
  }
  return {
    experimentId,
    status: experiment.status,
    planned,
    recorded: trials.length,
    inFlight,
    waiting: Math.max(0, planned - trials.length - inFlight),
    outcomes,
    abandoned,
    ...(lease && lease.expiresAt > nowMs
      ? { lease: { holder: lease.holder, expiresAt: new Date(lease.expiresAt).toISOString() } }
      : {}),
    workers: [...tallies.values()].sort((a, b) => a.worker.localeCompare(b.worker)),
  };
}
