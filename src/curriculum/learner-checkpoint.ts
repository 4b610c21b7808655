/**
 * A curriculum run with an agent that learns (a learner): its policy is checkpointed with each
 * sampler snapshot (in the store's `policies` table, the snapshot naming it by hash; the run keeps its
 * latest checkpoint only), and a resumed run restores it, then lets the agent play again, in memory,
 * the episodes recorded after that snapshot (same specs, same policy: the same trajectories), so it
 * learns from them in the same order and continues with the policy it had when the run stopped.
 * Without a store (a history in memory) nothing is checkpointed: a resume plays every recorded episode
 * again, from the agent as resolved — exact for a freshly resolved agent (a new process's), not for the
 * stopped run's own agent object, which already learned from them.
 *
 * What this cannot reproduce: an attempt that ended with an infrastructure outcome after the last
 * snapshot is not played again (it taught the learner nothing, but the random numbers its actions drew
 * are not drawn again); a replayed episode that ends otherwise than recorded (a non-deterministic
 * world or agent) stops the resume with `curriculum_history_diverged`.
 */
import { storedPolicy } from "../agents/learner-policies.ts";
import type { ResolvedAgent } from "../agents/resolve.ts";
import { isInfraOutcome, type TrialSpec } from "../core/contracts.ts";
import { configError, internalError } from "../core/errors.ts";
import type { LearnerPolicy } from "../learners/policy.ts";
import { type RecordedTrial, replayForLearner } from "../runner/learner-replay.ts";
import type { PolicyStore } from "../store/policies.ts";
import { type RunSpecsOptions, runSpecs } from "./run-specs.ts";
import type { CurriculumEpisodesTable } from "./store-tables.ts";

/** What playing episodes again for the agent needs of the run (no store: nothing is recorded). */
export type ReplayParts = Pick<RunSpecsOptions, "registry" | "environment" | "agent" | "signal">;

/** The agent's part of a stored snapshot: its policy's hash (the policy is in the store). */
export interface AgentCheckpoint {
  policy: string;
}

/** The source of a run's checkpoints in the store (`checkpoint@<episode row>`). */
const CHECKPOINT = "checkpoint@";

/**
 * Checkpoints the agent's policy to the store as `checkpoint@N` of the run (nothing for an agent that
 * does not learn, or without a store).
 */
export async function checkpointAgent(
  agent: ResolvedAgent,
  at: { runId: string; afterEpisode: number; now: () => Date; store?: PolicyStore | undefined },
): Promise<AgentCheckpoint | undefined> {
  // a frozen learner (not `ordered`: it learns nothing across trials) keeps the policy it was given
  const policy = agent.ordered ? agent.checkpoint?.() : undefined;
  if (!policy || !at.store) return undefined;
  await at.store.savePolicy(
    storedPolicy(policy, {
      source: `${CHECKPOINT}${at.afterEpisode}`,
      experimentId: at.runId,
      createdAt: at.now().toISOString(),
    }),
  );
  return { policy: policy.hash };
}

/** Once the snapshot naming `kept` is stored, the run's earlier checkpoints go (the latest is what a resume reads). */
export async function pruneCheckpoints(
  store: PolicyStore,
  runId: string,
  kept: AgentCheckpoint,
): Promise<void> {
  await store.dropPolicies(runId, CHECKPOINT, [kept.policy]);
}

/** Restores the agent to a checkpoint (from the store, by hash). */
export async function restoreAgent(
  agent: ResolvedAgent,
  checkpoint: AgentCheckpoint,
  store: PolicyStore | undefined,
): Promise<void> {
  if (!store)
    throw configError(
      "unknown_policy",
      `the run's snapshot names the policy ${checkpoint.policy}, kept in the store: resume with the run's --store`,
    );
  agent.restoreCheckpoint?.((await store.getPolicy(checkpoint.policy)).policy as unknown as LearnerPolicy);
}

/** One recorded episode to play again: its spec as the run planned it, and the outcome it recorded. */
export interface RecordedEpisode extends RecordedTrial {
  trialId: string;
}

/**
 * Plays recorded episodes again for the agent, in order and in memory (nothing is recorded), so a
 * learner learns from them as it did; each must be planned as before and end as recorded.
 */
export async function replayForAgent(
  runId: string,
  episodes: readonly RecordedEpisode[],
  opts: ReplayParts,
): Promise<void> {
  for (const e of episodes) {
    if (e.spec.id !== e.trialId)
      throw internalError(
        "curriculum_history_diverged",
        `curriculum run ${runId}: replaying trial ${e.trialId} for the learner planned ${e.spec.id}`,
      );
  }
  // aborted (no record): the resume stops before its first episode
  await replayForLearner(
    episodes,
    async (spec) => (await runSpecs([spec], opts))[0],
    (e, record) =>
      internalError(
        "curriculum_history_diverged",
        `curriculum run ${runId}: the learner replaying trial ${e.spec.id} ended ${record.outcome}, the history says ${e.outcome} (the world or the agent is not deterministic)`,
      ),
  );
}

/**
 * Resumes a learning agent: restores the policy the latest snapshot checkpointed (none: the agent as
 * resolved, which is how the run started) and plays again the episodes recorded after it (`rows`, every
 * attempt of the run; `specOf` plans a row's trial as the run did, given its episode number).
 */
export async function resumeAgent(
  agent: ResolvedAgent,
  o: {
    runId: string;
    rows: readonly CurriculumEpisodesTable[];
    snapshot: { afterEpisode: number; snapshot: unknown } | undefined;
    store?: PolicyStore | undefined;
    replay: ReplayParts;
    specOf: (row: CurriculumEpisodesTable, episodeNumber: number) => TrialSpec;
  },
): Promise<void> {
  if (!agent.ordered) return; // frozen: there is nothing to restore or learn again
  const saved = (o.snapshot?.snapshot as { agent?: AgentCheckpoint } | undefined)?.agent;
  if (saved) await restoreAgent(agent, saved, o.store);
  const from = saved ? (o.snapshot?.afterEpisode ?? 0) : 0;
  const episodes: RecordedEpisode[] = [];
  let episode = 0;
  o.rows.forEach((row, i) => {
    if (isInfraOutcome(row.outcome)) return;
    episode++;
    if (i >= from)
      episodes.push({ spec: o.specOf(row, episode), trialId: row.trial_id, outcome: row.outcome });
  });
  await replayForAgent(o.runId, episodes, o.replay);
}

/**
 * A run killed after recording an episode's trial but before storing the episode reads that trial back
 * when resumed instead of playing it: the learning agent plays it first (in memory), as it did.
 */
export async function replayIfRecorded(
  runId: string,
  spec: TrialSpec,
  store: { getTrial(id: string): Promise<{ outcome: string } | undefined> },
  replay: ReplayParts,
): Promise<void> {
  if (!replay.agent.ordered) return;
  const before = await store.getTrial(spec.id);
  // an infrastructure outcome taught nothing: replayForLearner leaves it out
  if (before) await replayForAgent(runId, [{ spec, trialId: spec.id, outcome: before.outcome }], replay);
}
