import { configError } from "../core/errors.ts";
import type { JsonObject } from "../core/json.ts";
import type { BaseSamplerOptions } from "./base-sampler.ts";
import { LearnabilitySampler } from "./learnability-sampler.ts";
import { LearningProgressSampler } from "./learning-progress-sampler.ts";
import { PlrSampler } from "./plr-sampler.ts";
import { RecoveryLearnabilitySampler } from "./recovery-learnability-sampler.ts";
import type { Sampler } from "./sampler.ts";
import { TargetBandSampler } from "./target-band-sampler.ts";
import { UniformSampler } from "./uniform-sampler.ts";

/** The strategies `createSampler` builds, by name. */
export const STRATEGIES = [
  "uniform",
  "target-band",
  "learnability",
  "learnability-recovery",
  "plr",
  "learning-progress",
] as const;
export type Strategy = (typeof STRATEGIES)[number];

/**
 * The default strategy: learnability (SFL), p(1 − p). It puts the budget where the agent is learnable
 * (neither never nor always passed); PLR's 1 − p̂ chases what the agent can never pass (docs/curriculum.md
 * has the measurements).
 */
export const DEFAULT_STRATEGY: Strategy = "learnability";

/**
 * A sampler by strategy name; `options` are the strategy's own (see each class), passed through.
 * `unknown_strategy` for a name not in STRATEGIES.
 */
export function createSampler(strategy: string, base: BaseSamplerOptions, options: JsonObject = {}): Sampler {
  const opts = { ...options, ...base };
  switch (strategy) {
    case "uniform":
      return new UniformSampler(opts);
    case "target-band":
      return new TargetBandSampler(opts);
    case "learnability":
      return new LearnabilitySampler(opts);
    case "learnability-recovery":
      return new RecoveryLearnabilitySampler(opts);
    case "plr":
      return new PlrSampler(opts);
    case "learning-progress":
      return new LearningProgressSampler(opts);
    default:
      throw configError(
        "unknown_strategy",
        `unknown curriculum strategy "${strategy}" (known: ${STRATEGIES.join(", ")})`,
      );
  }
}
