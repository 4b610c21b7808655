import type { Check, Verdict, Violation } from "../core/contracts.ts";

/** One part of a linked episode: the world it ran in and its verifier's verdict (absent when never reached). */
export interface VerdictPart {
  world: string;
  verifier: string;
  verdict?: Verdict;
  /** Added to the part's violation steps so they index the linked episode's calls. */
  stepOffset: number;
  /** Why the part has no verdict (e.g. the hand-off found nothing to hand over). */
  missing?: string;
}

/**
 * The verdict of a Link: passed = every part passed (A.passed AND B.passed); the checks and the
 * violations of every part, each named after its world. Pure; it judges nothing itself.
 */
export function combineVerdicts(parts: VerdictPart[]): Verdict {
  const checks: Check[] = [];
  const violations: Violation[] = [];
  for (const p of parts) {
    if (!p.verdict) {
      checks.push({
        name: `${p.world}:reached`,
        passed: false,
        detail: p.missing ?? "this part of the episode never started",
      });
      continue;
    }
    for (const c of p.verdict.checks) checks.push({ ...c, name: `${p.world}:${c.name}` });
    for (const v of p.verdict.violations) {
      violations.push({
        ...v,
        step: v.step >= 0 ? v.step + p.stepOffset : v.step,
        detail: `${p.world}: ${v.detail}`,
      });
    }
  }
  const passed = parts.every((p) => p.verdict?.passed === true);
  const scores = parts.map((p) => p.verdict?.score ?? 0);
  const mean = scores.reduce((a, b) => a + b, 0) / Math.max(1, scores.length);
  return {
    passed,
    score: passed ? 1 : violations.length > 0 ? 0 : Math.min(mean, 0.99),
    checks,
    violations,
    verifier: parts.map((p) => p.verifier).join("+"),
  };
}
