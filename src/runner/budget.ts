import type { ActionMeta, Budget, TrialStats } from "../core/contracts.ts";

/**
 * Why the trial may not take another step, or `undefined` while every budget has room: the step
 * budget (agent steps, not setup steps), virtual time, tokens and cost, checked in that order
 * before each `act()`.
 */
export function exhaustedBudget(budget: Budget, agentSteps: number, stats: TrialStats): string | undefined {
  if (agentSteps >= budget.maxSteps) return `step budget of ${budget.maxSteps} exhausted`;
  if (budget.maxVirtualSeconds !== undefined && stats.virtualSeconds >= budget.maxVirtualSeconds)
    return `virtual-time budget of ${budget.maxVirtualSeconds} s exhausted`;
  if (budget.maxTokens !== undefined && stats.tokensIn + stats.tokensOut >= budget.maxTokens)
    return `token budget of ${budget.maxTokens} exhausted`;
  if (budget.maxCostUsd !== undefined && stats.costUsd >= budget.maxCostUsd)
    return `cost budget of $${budget.maxCostUsd} exhausted`;
  return undefined;
}

/** Adds what an action cost (its `meta`: tokens in and out, dollars) to the trial's stats. */
export function chargeUsage(stats: TrialStats, meta: ActionMeta): void {
  stats.tokensIn += meta.tokensIn ?? 0;
  stats.tokensOut += meta.tokensOut ?? 0;
  stats.costUsd += meta.costUsd ?? 0;
}
