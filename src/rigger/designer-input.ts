import type { ToolDescriptor, TrialRecord } from "../core/contracts.ts";
import type { JsonObject, JsonValue } from "../core/json.ts";
import { failed, violationCodes } from "./trace-steps.ts";
import type { DesignerInput, Diagnosis, TrajectoryExcerpt } from "./types.ts";

/** What a variant must not do: part of every designer prompt, and what validation enforces. */
export const RIGGER_PROHIBITIONS: readonly string[] = [
  "Do not make the task unsolvable: the world's known-good policy must still pass every validation rollout.",
  "Do not reach, read or change the verifier, the verdict or the effect log; the verifier id stays the base world's.",
  "Do not add or change a reward: rules have no reward hook, and `terminated` stays the world's.",
  "Do not reveal the task's hidden params, seed, family or the layers acting on it to the agent.",
  "Do not touch anything outside the episode: no clock, randomness, network, files or processes.",
  "Expose the diagnosed weakness; do not add unrelated difficulty.",
];

/** A short text of the rule API for designers that write layers only (code designers get the code API). */
export const LAYER_RULE_API = `A variant is {world, layers: [{id, params}]}, innermost first. A rule layer has three pure hooks:
filterAction(action, state) -> action | blocked(reason, {code, retryable}), modifyTransition(action, result, state) -> result,
filterObservation(obs, state) -> obs. state = {world (read-only view), now, step, params, history}. No reward hook.
Built-in rules are listed in layerCatalogue with their params; setup.replay@1 replays {actions:[{tool,args}]} after reset.`;

const clip = (v: JsonValue, max: number): JsonValue => {
  const text = JSON.stringify(v);
  return text.length <= max ? v : `${text.slice(0, max)}... (${text.length} chars)`;
};

/** A trajectory cut for a prompt: the first `head` and last `tail` agent steps, each result clipped. */
export function trajectoryExcerpt(r: TrialRecord, head = 8, tail = 8, maxResult = 400): TrajectoryExcerpt {
  const steps = r.steps.filter((s) => !s.setup);
  const keep = steps.length <= head + tail ? steps : [...steps.slice(0, head), ...steps.slice(-tail)];
  return {
    trialId: r.spec.id,
    outcome: r.outcome,
    family: r.task.family,
    difficulty: r.task.difficulty,
    steps: keep.map((s) => ({
      index: s.index,
      tool: s.action.tool,
      args: s.action.args,
      result:
        s.observation.kind === "tool_result"
          ? clip(s.observation.result as unknown as JsonValue, maxResult)
          : { observation: s.observation.kind },
    })),
    omitted: steps.length - keep.length,
    violations: violationCodes(r),
  };
}

/** A JSON-Schema-like shape of a sample value (types, object properties, the first array item). */
export function shapeOf(v: JsonValue, depth = 0): JsonObject {
  if (v === null) return { type: "null" };
  if (Array.isArray(v))
    return depth > 6 || v.length === 0
      ? { type: "array" }
      : { type: "array", items: shapeOf(v[0], depth + 1) };
  if (typeof v === "object") {
    if (depth > 6) return { type: "object" };
    const properties: JsonObject = {};
    for (const [k, x] of Object.entries(v)) properties[k] = shapeOf(x as JsonValue, depth + 1);
    return { type: "object", properties };
  }
  return { type: typeof v };
}

export interface DesignerInputSource {
  world: string;
  diagnosis: Diagnosis;
  /** The baseline trials (the excerpts come from them). */
  baseline: readonly TrialRecord[];
  tools: ToolDescriptor[];
  /** A sample of the world's state view (its shape is the state schema designers see). */
  stateView: JsonObject;
  /** The rule API text (default `LAYER_RULE_API`; the code path's API text for code designers). */
  ruleApi?: string;
  /** The layers the gym's harness can build (`gym.harness.layers()`). */
  layers?: readonly { id: string; description: string }[];
}

/**
 * Everything a designer is told: the diagnosis, the shortest success and the longest failure of the
 * baseline (truncated; the failure an evidence trial when there is one), the tools' schemas, the state
 * schema, the rule API, the prohibitions and the built-in layers.
 */
export function buildDesignerInput(s: DesignerInputSource): DesignerInput {
  const evidence = new Set(s.diagnosis.evidence.map((e) => e.trialId));
  const successes = s.baseline
    .filter((r) => r.outcome === "passed")
    .sort((a, b) => a.steps.length - b.steps.length);
  const failures = s.baseline
    .filter((r) => failed(r))
    .sort(
      (a, b) =>
        Number(evidence.has(b.spec.id)) - Number(evidence.has(a.spec.id)) || b.steps.length - a.steps.length,
    );
  return {
    world: s.world,
    diagnosis: s.diagnosis,
    trajectories: {
      ...(successes[0] ? { shortestSuccess: trajectoryExcerpt(successes[0]) } : {}),
      ...(failures[0] ? { longestFailure: trajectoryExcerpt(failures[0]) } : {}),
    },
    tools: s.tools,
    stateSchema: shapeOf(s.stateView),
    ruleApi: s.ruleApi ?? LAYER_RULE_API,
    prohibitions: [...RIGGER_PROHIBITIONS],
    layerCatalogue: (s.layers ?? []).map((l) => ({ id: l.id, description: l.description })),
  };
}
