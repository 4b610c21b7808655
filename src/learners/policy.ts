/**
 * A learner's policy as plain JSON: which learner, its version, its settings, its parameters (a Q
 * table or linear weights), the state of its random numbers, its training history, and a content
 * hash over all of that. Saved as it is (the store or a file); `restoreLearner` rebuilds the learner.
 */
import { ProvingError } from "../core/errors.ts";
import { hashJson } from "../core/hash.ts";
import type { JsonObject } from "../core/json.ts";
import type { RngState } from "../core/rng.ts";

/** The two reference learners. */
export type LearnerId = "learner.q@1" | "learner.pg@1";

/** How training went so far: episodes, passes, and passes per block of `block` episodes. */
export interface TrainingHistory {
  episodes: number;
  /** Episodes that updated the policy (not frozen ones). */
  updates: number;
  passes: number;
  block: number;
  /** Passes in each block of `block` updating episodes, oldest first (the last one may be partial). */
  passesPerBlock: number[];
}

export interface LearnerPolicy {
  learner: LearnerId;
  /** The policy format's version. */
  version: 1;
  config: JsonObject;
  params: JsonObject;
  rng: RngState;
  history: TrainingHistory;
  /** `hashJson` of every other field. */
  hash: string;
}

/** The content hash of a policy: of everything but the hash itself. */
export function policyHash(policy: Omit<LearnerPolicy, "hash">): string {
  const { hash: _hash, ...rest } = policy as LearnerPolicy;
  return hashJson(rest);
}

/** Checks a policy read from a file or the store: its learner, version and hash. */
export function checkPolicy(policy: LearnerPolicy): LearnerPolicy {
  if (policy?.learner !== "learner.q@1" && policy?.learner !== "learner.pg@1") {
    throw new ProvingError("bad_agent_spec", `not a learner policy (learner: ${String(policy?.learner)})`);
  }
  if (policy.version !== 1) {
    throw new ProvingError("bad_agent_spec", `${policy.learner}: policy version ${policy.version} is not 1`);
  }
  const hash = policyHash(policy);
  if (policy.hash !== hash) {
    throw new ProvingError(
      "bad_agent_spec",
      `${policy.learner}: the policy's hash ${policy.hash} is not ${hash}`,
    );
  }
  return policy;
}

export function emptyHistory(block = 100): TrainingHistory {
  return { episodes: 0, updates: 0, passes: 0, block, passesPerBlock: [] };
}

/** Adds one episode to a history (in place). */
export function recordEpisode(history: TrainingHistory, passed: boolean, updated: boolean): void {
  history.episodes++;
  if (passed) history.passes++;
  if (!updated) return;
  const index = Math.floor(history.updates / history.block);
  history.updates++;
  while (history.passesPerBlock.length <= index) history.passesPerBlock.push(0);
  if (passed) history.passesPerBlock[index]++;
}
