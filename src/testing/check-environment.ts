import { type AgentSweep, sweepAgents } from "./agent-sweep.ts";
import { CheckRun } from "./check-run.ts";
import { admissibleChecks } from "./checks/admissible.ts";
import { agentChecks } from "./checks/agents.ts";
import { badInputChecks } from "./checks/bad-input.ts";
import { definitionChecks } from "./checks/definition.ts";
import { determinismChecks } from "./checks/determinism.ts";
import type { CheckPlan, PlannedCheck } from "./checks/planned-check.ts";
import { policyChecks } from "./checks/policies.ts";
import { resetChecks } from "./checks/reset.ts";
import { saveRestoreChecks } from "./checks/save-restore.ts";
import { taskChecks } from "./checks/tasks.ts";
import { toolChecks } from "./checks/tools.ts";
import type { CheckOptions, CheckTarget } from "./options.ts";
import { EpisodePlayer } from "./play-episode.ts";
import { PRESETS } from "./presets.ts";
import { type CheckKind, type CheckResult, type ConformanceReport, conformanceReport } from "./report.ts";
import { Subject } from "./subject.ts";

async function runCheck(plan: CheckPlan, check: PlannedCheck): Promise<CheckResult> {
  const base = { name: check.name, kind: check.kind };
  if (check.notCheckable !== undefined)
    return { ...base, status: "not_checkable", reason: check.notCheckable, details: [] };
  const run = new CheckRun();
  try {
    await run.scope("", (_s) => check.run(run));
  } finally {
    await plan.subject.releaseAll();
  }
  if (run.failed) return { ...base, status: "failed", reason: run.failures[0], details: run.details() };
  return { ...base, status: "passed", details: [...(check.covers ? [check.covers] : []), ...run.covered] };
}

/**
 * Runs the conformance checks every world passes on a world definition, or on an environment
 * factory (a harnessed variant, a remote world) with `options.world` for its tasks and policies:
 * definition, task generation, tool schemas, bad input, determinism, save/restore at every step,
 * mid-episode reset, known-good vs known-bad policies, admissible actions when declared (`CHECK_KINDS`,
 * the conformance preset); with
 * `options.preset: "audit"` (or `options.kinds`), the reference agents' checks: null and random
 * agents pass nothing, verdicts judged alike, a learning signal, hidden params unreachable. Returns the report; never throws for what the
 * environment does (a world that throws fails the check it threw in). A check that needs a
 * capability the environment does not declare (inspection; a way to restore) is `not_checkable`.
 *
 * The checker reads no clock and no `Math.random` and does no IO of its own (randomness is seeded;
 * a remote environment does its own IO). Policy runs go through the runner, which records wall times
 * the checks never compare.
 */
export async function checkEnvironment(
  target: CheckTarget,
  options: CheckOptions = {},
): Promise<ConformanceReport> {
  const subject = new Subject(target, options);
  const first = subject.firstCell() ?? {
    family: subject.world.families[0]?.name ?? "",
    difficulty: 1,
    seed: 0,
  };
  const probe = subject.create(first);
  const declared = probe.capabilities ?? {};
  const base = {
    subject,
    spec: probe.spec,
    capabilities: {
      inspection: declared.inspection !== undefined,
      delivery: declared.delivery !== undefined,
      timeControl: declared.timeControl !== undefined,
      setup: declared.setup !== undefined,
      admissible: declared.admissible !== undefined,
      restore: subject.restorer !== undefined,
    },
  };
  await subject.releaseAll();
  const player = new EpisodePlayer(subject);
  let sweep: Promise<AgentSweep> | undefined;
  const plan: CheckPlan = {
    ...base,
    player,
    agents: () => {
      sweep ??= sweepAgents(subject, player);
      return sweep;
    },
  };
  const kinds = new Set<CheckKind>(options.kinds ?? PRESETS[options.preset ?? "conformance"].kinds);
  const planned = [
    ...definitionChecks(plan, options.restore),
    ...taskChecks(plan),
    ...toolChecks(plan),
    ...badInputChecks(plan),
    ...determinismChecks(plan),
    ...saveRestoreChecks(plan),
    ...resetChecks(plan),
    ...policyChecks(plan),
    ...admissibleChecks(plan),
    ...agentChecks(plan),
  ].filter((c) => kinds.has(c.kind) && (options.only?.(c.name) ?? true));
  const results: CheckResult[] = [];
  for (const check of planned) results.push(await runCheck(plan, check));
  return conformanceReport(plan.spec.id, subject.world.id, plan.capabilities, results);
}
