import type { Action, StepResult } from "../core/contracts.ts";

/** A step a Setup layer replayed after reset: in the trace, marked `info.setup`, not an agent step. */
export interface ReplayedStep extends StepResult {
  action: Action;
}

/** The steps Setup layers replayed in the current episode (innermost first); [] for anything else. */
export function replayedSteps(env: unknown): ReplayedStep[] {
  const e = env as { setupSteps?: () => ReplayedStep[] };
  return typeof e?.setupSteps === "function" ? e.setupSteps() : [];
}
