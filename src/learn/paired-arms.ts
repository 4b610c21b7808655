/** The three arms' outcomes on the same tasks, seeds and budgets, paired and tested. */
import type { TrialSummary } from "../core/trial-summary.ts";
import { comparePaired } from "../stats/compare-paired.ts";
import { wilson } from "../stats/wilson.ts";
import type { Arm, ArmRate, EvaluationSet } from "./learn-result.ts";

const unit = (t: TrialSummary) =>
  JSON.stringify([t.world, t.variantId ?? "", t.family, t.difficulty, t.seed, t.repeat]);

/** `rows`: one per planned trial (missing ones count as not passed); `agents`: the arm of each agent id. */
export function evaluationSet(
  name: EvaluationSet["name"],
  families: readonly string[],
  rows: readonly TrialSummary[],
  agents: Record<string, Arm>,
  confidence: number,
): EvaluationSet {
  const byUnit = new Map<string, Partial<Record<Arm, boolean>>>();
  for (const t of rows) {
    if (!families.includes(t.family)) continue;
    const arm = agents[t.agent];
    if (!arm) continue;
    const u = byUnit.get(unit(t)) ?? {};
    u[arm] = t.outcome === "passed";
    byUnit.set(unit(t), u);
  }
  const units = [...byUnit.values()];
  const rate = (arm: Arm): ArmRate => {
    const planned = units.filter((u) => u[arm] !== undefined).length;
    const passed = units.filter((u) => u[arm] === true).length;
    return { passed, planned, rate: wilson(passed, planned, confidence) };
  };
  const pairs = (a: Arm, b: Arm) =>
    units
      .filter((u) => u[a] !== undefined && u[b] !== undefined)
      .map((u) => ({ a: u[a] === true, b: u[b] === true }));
  const options = { confidence };
  return {
    name,
    families: [...families],
    arms: { none: rate("none"), original: rate("original"), variants: rate("variants") },
    comparisons: {
      variantsVsNone: comparePaired(pairs("variants", "none"), options),
      originalVsNone: comparePaired(pairs("original", "none"), options),
      variantsVsOriginal: comparePaired(pairs("variants", "original"), options),
    },
  };
}
