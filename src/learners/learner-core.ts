import type { JsonObject } from "../core/json.ts";
import type { Rng } from "../core/rng.ts";

/** One decision of an episode, as a learner remembers it. */
export interface LearnerStep {
  /** The observation features the decision was made on. */
  state: string[];
  /** The action key of the chosen action. */
  action: string;
  /** The action keys of every admissible action, in the list's order. */
  options: string[];
}

/** What a reference learner's decision rule and update are (a Q table, a linear softmax policy). */
export interface LearnerCore {
  /** Index into `options` of the action to take; `greedy` when frozen (no randomness used). */
  choose(state: readonly string[], options: readonly string[], rng: Rng, greedy: boolean): number;
  /** Learns from one whole episode and its reward (1 passed, 0 not). */
  learn(steps: readonly LearnerStep[], reward: number): void;
  /** Its parameters, plain JSON. */
  params(): JsonObject;
}
