/**
 * What `checkEnvironment` returns: one result per check, plain JSON (no timings, nothing random), so
 * two runs on the same environment give the same report.
 */

/**
 * `not_checkable`: the environment does not declare a capability the check needs (inspection, a way
 * to restore a saved state, a known-good policy), or nothing was selected for it to check. Never a
 * silent pass.
 */
export type CheckStatus = "passed" | "failed" | "not_checkable";

/** The kinds of conformance checks (what every world passes), in the order they run. */
export const CHECK_KINDS = [
  "definition",
  "tasks",
  "tools",
  "bad-input",
  "determinism",
  "save-restore",
  "reset",
  "policies",
  "admissible",
] as const;
/**
 * The kinds of checks the reference agents (null, random, middling) play, run after the conformance
 * kinds when selected (`options.kinds`; the audit's preset does).
 */
export const AGENT_CHECK_KINDS = ["cheating", "verdicts", "learning-signal", "hidden"] as const;
export type CheckKind = (typeof CHECK_KINDS)[number] | (typeof AGENT_CHECK_KINDS)[number];

export interface CheckResult {
  /** Stable, human-readable: `determinism: lost-reply: same (task, seed, actions) → same trajectory hash`. */
  name: string;
  kind: CheckKind;
  status: CheckStatus;
  /** The first failure (`failed`) or what is missing (`not_checkable`); absent when it passed. */
  reason?: string;
  /** `failed`: every failure found (the first 20, then a count); `passed`: what was covered. */
  details: string[];
}

/** What the checked environment declared (and whether the checker could restore its saved states). */
export interface DeclaredCapabilities {
  inspection: boolean;
  delivery: boolean;
  timeControl: boolean;
  setup: boolean;
  /** Admissible actions (an optional capability; its check is `not_checkable` without it). */
  admissible: boolean;
  /** A way to restore a saved state was given (or the target world's own `restore`). */
  restore: boolean;
}

export interface ConformanceReport {
  /** The checked environment's `spec.id` (a variant id for a harnessed variant). */
  environment: string;
  /** The base world whose tasks and policies the checks used. */
  world: string;
  capabilities: DeclaredCapabilities;
  checks: CheckResult[];
  counts: Record<CheckStatus, number>;
  /** No check failed (`not_checkable` ones do not count against it; see `assertConformant`). */
  ok: boolean;
}

/** Builds the report from the check results. */
export function conformanceReport(
  environment: string,
  world: string,
  capabilities: DeclaredCapabilities,
  checks: CheckResult[],
): ConformanceReport {
  const counts: Record<CheckStatus, number> = { passed: 0, failed: 0, not_checkable: 0 };
  for (const c of checks) counts[c.status]++;
  return { environment, world, capabilities, checks, counts, ok: counts.failed === 0 };
}

const MARK: Record<CheckStatus, string> = { passed: "ok  ", failed: "FAIL", not_checkable: "n/c " };

/**
 * The report as text: a headline, then one line per check (`ok`, `FAIL`, `n/c` for not checkable)
 * with its reason, and under each failed check its first details (`maxDetails`, default 5).
 * `passed: false` leaves the passed checks out.
 */
export function formatReport(
  report: ConformanceReport,
  opts: { passed?: boolean; maxDetails?: number } = {},
): string {
  const max = opts.maxDetails ?? 5;
  const { counts } = report;
  const lines = [
    `conformance of ${report.environment}${report.environment === report.world ? "" : ` (world ${report.world})`}: ` +
      `${counts.passed} passed, ${counts.failed} failed, ${counts.not_checkable} not checkable`,
  ];
  for (const c of report.checks) {
    if (c.status === "passed" && opts.passed === false) continue;
    lines.push(`  ${MARK[c.status]} ${c.name}${c.reason ? ` — ${c.reason}` : ""}`);
    if (c.status !== "failed") continue;
    for (const d of c.details.slice(1, max)) lines.push(`         ${d}`);
    if (c.details.length > max) lines.push(`         ... ${c.details.length - max} more in the report`);
  }
  return lines.join("\n");
}
