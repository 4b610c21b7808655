import type { Agent, TaskRequest, TrialRecord, TrialSpec } from "../core/contracts.ts";
import type { EnvironmentFactory } from "../core/environment-factory.ts";
import type { JsonValue } from "../core/json.ts";
import type { Registry, WorldDefinition } from "../core/registry.ts";
import { executePlan } from "../runner/executor.ts";
import { DEFAULT_BUDGET } from "../runner/experiment.ts";
import { trialId } from "../runner/manifest.ts";
import { MemoryRecorder } from "../runner/memory-recorder.ts";
import type { TrialRecorder } from "../runner/recorder.ts";
import { sequentialScheduler } from "../runner/trial-scheduler.ts";

/**
 * One episode to play: a task, and optionally the harness variant it is played on (`variant` with the
 * `variantId` the harness gives it; the episode's environment comes from `EpisodeParts.environment`)
 * and the split it belongs to (recorded with the trial). Absent: the bare world, the world's default split.
 */
export type EpisodeRequest = TaskRequest & { variant?: JsonValue; variantId?: string };

/** What playing episodes needs: where worlds come from and how each trial's environment is built. */
export interface EpisodeParts {
  registry: Pick<Registry, "world">;
  environment?: EnvironmentFactory;
}

export interface PlayOptions {
  /** The experiment the episodes are planned in (default `train`). */
  experimentId?: string;
  /** Most agent steps per episode (default 60). */
  maxSteps?: number;
  /** Where the episodes are recorded (default: in memory, summaries only). */
  recorder?: TrialRecorder;
  /** The first episode's index in its experiment (a stream of batches keeps counting). */
  firstIndex?: number;
}

/**
 * Plays `requests` with `agent` on `world`, one after another in order, through the runner's one
 * pipeline (`executePlan` with a sequential scheduler): every episode is a planned trial with the
 * runner's budgets, checks and verdict, and an agent that learns does so in its session's end hook,
 * in this order. Returns each episode's outcome, in order.
 */
export async function playEpisodes(
  parts: EpisodeParts,
  world: WorldDefinition,
  agent: Agent,
  requests: readonly EpisodeRequest[],
  options: PlayOptions = {},
): Promise<TrialRecord["outcome"][]> {
  const experimentId = options.experimentId ?? "train";
  const first = options.firstIndex ?? 0;
  const ref = { id: agent.id, kind: "learner", spec: agent.id };
  const budget = { ...DEFAULT_BUDGET, maxSteps: options.maxSteps ?? 60 };
  const manifest: TrialSpec[] = requests.map((r, i) => {
    const index = first + i;
    const planned = {
      world: world.id,
      family: r.family,
      difficulty: r.difficulty,
      seed: r.seed,
      repeat: index,
    };
    const variant = r.variant !== undefined ? { variant: r.variant, variantId: r.variantId } : {};
    return {
      schemaVersion: 1,
      id: trialId({
        experimentId,
        ...planned,
        ...(r.variantId ? { variantId: r.variantId } : {}),
        agent: ref.id,
      }),
      experimentId,
      index,
      ...planned,
      ...variant,
      ...(r.split ? { split: r.split } : {}),
      agent: ref,
      budget,
    };
  });
  const outcomes = new Map<string, TrialRecord["outcome"]>();
  await executePlan(
    { experiment: { id: experimentId, config: { id: experimentId }, createdAt: "" }, manifest },
    {
      registry: parts.registry,
      ...(parts.environment ? { environment: parts.environment } : {}),
      agents: new Map([[ref.id, { ref, forWorld: () => agent }]]),
      recorder: options.recorder ?? new MemoryRecorder(),
      scheduler: sequentialScheduler(),
      onTrial: (record) => {
        outcomes.set(record.spec.id, record.outcome);
      },
    },
  );
  return manifest.map((s) => outcomes.get(s.id) ?? "missing");
}
