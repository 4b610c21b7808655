import type { Environment, Observation, StepResult, TrialRecord } from "../core/contracts.ts";
import { bareWorld, type EnvironmentFactory } from "../core/environment-factory.ts";
import { configError, errorMessage } from "../core/errors.ts";
import { canonicalJson } from "../core/hash.ts";
import type { JsonValue } from "../core/json.ts";
import type { Registry } from "../core/registry.ts";
import { trialTask } from "./trial-start.ts";

/** Where a replay first differs from the record. */
export interface ReplayDivergence {
  /**
   * Index of the step (0-based, as `proving show` numbers them) whose result differs; -1 for the
   * task or the observation after reset. For `what: "verdict"`, the last step.
   */
  step: number;
  /**
   * What differs: `task`, `initial observation`, `setup step`, `observation`, `reward`, `terminated`,
   * `truncated`, `world error`, `verdict`.
   */
  what: string;
  expected: JsonValue;
  actual: JsonValue;
}

export interface ReplayResult {
  trialId: string;
  /** True when every observation (and the verdict) of the record came back identical. */
  reproduced: boolean;
  /** Steps replayed (up to and including the divergent one). */
  steps: number;
  divergence?: ReplayDivergence;
}

export interface ReplayOptions {
  registry: Registry;
  /** Builds the environment (a harness supplies one for variants); default the bare world. */
  environment?: EnvironmentFactory;
}

const same = (a: unknown, b: unknown) => canonicalJson(a) === canonicalJson(b);
const json = (v: unknown): JsonValue =>
  v === undefined ? null : (JSON.parse(canonicalJson(v)) as JsonValue);

/**
 * Re-runs a recorded trial's actions against a fresh world built from the record (the task generated
 * again from the spec, its content hash compared with the recorded one) and reports the first step
 * whose observation, reward or end flags differ, or that the trajectory and verdict reproduce exactly.
 * The agent is not involved: this checks the world's determinism and the record's integrity.
 */
export async function replayTrial(record: TrialRecord, opts: ReplayOptions): Promise<ReplayResult> {
  const spec = record.spec;
  const trialId = spec.id;
  if (record.initial === undefined) {
    throw configError(
      "nothing_to_replay",
      `trial ${trialId} never reached its world (${record.outcome}: ${record.reason}); there is nothing to replay`,
    );
  }
  if (spec.variant !== undefined && !opts.environment) {
    throw configError(
      "variant_needs_harness",
      `trial ${trialId} ran on variant ${spec.variantId ?? "?"}; replaying it needs the harness that builds it`,
    );
  }
  const world = opts.registry.world(spec.world);
  const diverged = (steps: number, d: ReplayDivergence): ReplayResult => ({
    trialId,
    reproduced: false,
    steps,
    divergence: d,
  });
  const task = trialTask(spec, world);
  if (task.generator.contentHash !== record.task.generator.contentHash || task.id !== record.task.id) {
    return diverged(0, {
      step: -1,
      what: "task",
      expected: { id: record.task.id, contentHash: record.task.generator.contentHash },
      actual: { id: task.id, contentHash: task.generator.contentHash },
    });
  }
  const env: Environment = (opts.environment ?? bareWorld)(spec, world);
  let initial: Observation;
  try {
    initial = await env.reset({ task, seed: spec.seed, episodeId: spec.id });
  } catch (err) {
    return diverged(0, {
      step: -1,
      what: "world error",
      expected: json(record.initial),
      actual: { error: errorMessage(err) },
    });
  }
  if (!same(initial, record.initial)) {
    return diverged(0, {
      step: -1,
      what: "initial observation",
      expected: json(record.initial),
      actual: json(initial),
    });
  }
  // steps a Setup layer replayed during reset come back from reset itself; compare, do not re-send them
  const setup = env.capabilities.setup?.setupSteps() ?? [];
  let last: StepResult | undefined;
  for (const [i, step] of record.steps.entries()) {
    if (step.setup) {
      const again = setup.shift();
      if (!again || !same(again.action, step.action) || !same(again.observation, step.observation)) {
        return diverged(i + 1, {
          step: step.index,
          what: "setup step",
          expected: json({ action: step.action, observation: step.observation }),
          actual: again ? json({ action: again.action, observation: again.observation }) : null,
        });
      }
      continue;
    }
    try {
      last = await env.step(step.action);
    } catch (err) {
      return diverged(i + 1, {
        step: step.index,
        what: "world error",
        expected: json(step.observation),
        actual: { error: errorMessage(err) },
      });
    }
    const checks: [string, unknown, unknown][] = [
      ["observation", step.observation, last.observation],
      ["reward", step.reward, last.reward],
      ["terminated", step.terminated, last.terminated],
      ["truncated", step.truncated, last.truncated],
    ];
    for (const [what, expected, actual] of checks) {
      if (!same(expected, actual)) {
        return diverged(i + 1, { step: step.index, what, expected: json(expected), actual: json(actual) });
      }
    }
  }
  if (record.verdict) {
    let verdict: unknown;
    try {
      verdict = last?.info.verdict ?? env.evaluate();
    } catch (err) {
      verdict = { error: errorMessage(err) };
    }
    if (!same(verdict, record.verdict)) {
      return diverged(record.steps.length, {
        step: record.steps.length - 1,
        what: "verdict",
        expected: json(record.verdict),
        actual: json(verdict),
      });
    }
  }
  return { trialId, reproduced: true, steps: record.steps.length };
}
