/**
 * `auditEnvironment`: can this environment be trained on, and can it be cheated? The audit preset of
 * the one checker (`checkEnvironment`, src/testing; `PRESETS.audit`): the known-good policy solves
 * every family, same (task, seed, actions) → same trajectory, reset leaves nothing behind, fuzzed bad
 * input gets coded errors; the null and random agents cannot pass (cheat resistance), the same final
 * state is judged the same twice (and after a save/restore), outcomes vary across seeds for a
 * middling agent (a learning signal), and nothing of the verifier or the hidden task params reaches
 * an agent through the tools. This file maps the checker's results to the audit's findings, and adds
 * the audit of a conversation world's simulated customers.
 *
 * Works on a world, a harnessed variant or a remote world (`connectRemote(url).environment`): the
 * target is an environment factory plus the world whose tasks and policies to use. Reads no clock and
 * no `Math.random` (every random choice is seeded), so two audits of the same target give the same report.
 */
import type { Environment } from "../core/contracts.ts";
import type { EnvironmentFactory } from "../core/environment-factory.ts";
import { errorMessage, ProvingError } from "../core/errors.ts";
import type { WorldDefinition } from "../core/registry.ts";
import {
  AGENT_CHECK_KINDS,
  type CheckKind,
  type CheckResult,
  checkEnvironment,
  PRESETS,
  type RestoreWith,
} from "../testing/index.ts";
import type { ConversationWorldDefinition } from "../worlds/device-support/conversation-world.ts";
import { auditCustomerSimulator, formatSimulatorAudit } from "./simulator-audit.ts";

const isConversationWorld = (w: WorldDefinition): w is ConversationWorldDefinition =>
  Array.isArray((w as Partial<ConversationWorldDefinition>).customerSimulators);

export type AuditStatus = "passed" | "failed" | "not_checkable";

export const AUDIT_CHECKS = [
  "known-good-solves",
  "null-agent-fails",
  "random-agent-fails",
  "verdict-deterministic",
  "replay-deterministic",
  "reset-clean",
  "bad-input-coded",
  "learning-signal",
  "hidden-unreachable",
  "simulator-audit",
  "session-isolation",
  "reward-reachability",
] as const;
export type AuditCheckId = (typeof AUDIT_CHECKS)[number];

export interface AuditFinding {
  id: AuditCheckId;
  title: string;
  status: AuditStatus;
  /** What was observed: the cells covered when it passed, the failures (first ones) when it failed. */
  evidence: string[];
}

export interface AuditReport {
  /** What was audited: a world id, a variant id, or a server URL. */
  target: string;
  world: string;
  ok: boolean;
  findings: AuditFinding[];
}

export interface AuditOptions {
  /** The world whose tasks, families and policies to use (required with a factory). */
  world: WorldDefinition;
  /** How the audited environments are built (default: the world's own instances). */
  environment?: EnvironmentFactory;
  /** What the report calls the target (default: the world id). */
  label?: string;
  /** Restoring saved states (default: the world's own, only for the bare world). */
  restore?: RestoreWith;
  /** Seeds per family (default [0, 1, 2]); the learning-signal check uses `signalSeeds`. */
  seeds?: number[];
  /** Difficulties (default [1, 3]). */
  difficulties?: number[];
  /** Seeds of the middling agent per family × difficulty (default 8). */
  signalSeeds?: number;
  /** Malformed calls per tool in the bad-input check (default 200). */
  fuzzPerTool?: number;
  /** Step budget of every episode (default 100). */
  maxSteps?: number;
  /** Random-agent episodes per family × difficulty × seed (default 2). */
  randomEpisodes?: number;
  /**
   * Largest action to send, in bytes, longest string and deepest arguments (a server's declared
   * limits: `connectRemote(url).limits`); the fuzzer sends nothing past them. Default: none.
   */
  maxActionBytes?: number;
  maxStringLength?: number;
  maxDepth?: number;
  /** Which error codes answer a bad call (`CheckOptions.badCallCodes`; default `"ours"`, `"any"` for a foreign server). */
  badCallCodes?: "ours" | "any";
  /** Called for each environment the audit is done with (a remote one: `env.close()`). */
  dispose?: (env: Environment) => void | Promise<void>;
}

const TITLES: Record<AuditCheckId, string> = {
  "known-good-solves": "the known-good policy solves every family",
  "null-agent-fails": "a null agent (ends at once) passes nothing",
  "random-agent-fails": "a random agent passes nothing",
  "verdict-deterministic": "the same final state is judged the same, twice and after save/restore",
  "replay-deterministic": "the same seed and actions replay to the same trajectory",
  "reset-clean": "reset leaves nothing of the previous episode behind",
  "bad-input-coded": "fuzzed bad input gets coded errors, never a crash",
  "learning-signal": "outcomes vary across seeds for a middling agent",
  "hidden-unreachable": "the verifier and the hidden task params are unreachable from the tools",
  "simulator-audit":
    "the simulated customers neither leak, capitulate nor contradict themselves, and never-asking fails",
  "session-isolation": "two concurrent episodes do not touch each other (a remote server we did not write)",
  "reward-reachability":
    "no file the tools can read gives away the answer or the grader (a remote server with a filesystem or shell tool)",
};

/** What a check of the audit shows (its report line's title). */
export function auditTitle(id: AuditCheckId): string {
  return TITLES[id];
}

const MAX_EVIDENCE = 12;

function fromChecker(id: AuditCheckId, results: CheckResult[]): AuditFinding {
  const failed = results.filter((r) => r.status === "failed");
  const passed = results.filter((r) => r.status === "passed");
  if (failed.length)
    return {
      id,
      title: TITLES[id],
      status: "failed",
      evidence: failed
        .flatMap((r) => [`${r.name}: ${r.reason ?? "failed"}`, ...r.details.slice(1, 3)])
        .slice(0, MAX_EVIDENCE),
    };
  if (!passed.length)
    return {
      id,
      title: TITLES[id],
      status: "not_checkable",
      evidence: results.map((r) => `${r.name}: ${r.reason ?? "not checkable"}`).slice(0, MAX_EVIDENCE),
    };
  return {
    id,
    title: TITLES[id],
    status: "passed",
    // with what the check noted beyond its coverage (the codes a foreign server answered with, ...)
    evidence: passed
      .map((r) => (r.details.length > 1 ? `${r.name}: ${r.details.slice(1).join("; ")}` : r.name))
      .slice(0, MAX_EVIDENCE),
  };
}

/** Which kinds of the checker's results each finding reads (`simulator-audit` is the audit's own). */
const FROM_KINDS: Partial<Record<AuditCheckId, { kind: CheckKind; name?: string }>> = {
  "known-good-solves": { kind: "policies", name: "policies: known-good" },
  "null-agent-fails": { kind: "cheating", name: "cheating: a null agent" },
  "random-agent-fails": { kind: "cheating", name: "cheating: a random agent" },
  "verdict-deterministic": { kind: "verdicts" },
  "replay-deterministic": { kind: "determinism" },
  "reset-clean": { kind: "reset" },
  "bad-input-coded": { kind: "bad-input" },
  "learning-signal": { kind: "learning-signal" },
  "hidden-unreachable": { kind: "hidden" },
};

/** A finding from one check of the reference agents: its details are the evidence. */
function fromAgentCheck(id: AuditCheckId, result: CheckResult | undefined): AuditFinding {
  const status = result?.status ?? "not_checkable";
  const evidence =
    status === "not_checkable"
      ? [result?.reason ?? "not checked"]
      : (result?.details ?? []).slice(0, MAX_EVIDENCE);
  return { id, title: TITLES[id], status, evidence };
}

/** Audits an environment; never throws for what the environment does (it fails the check instead). */
export async function auditEnvironment(opts: AuditOptions): Promise<AuditReport> {
  const world = opts.world;
  const seeds = opts.seeds ?? [...PRESETS.audit.seeds];
  if (seeds.length === 0 || !seeds.every(Number.isInteger))
    throw new ProvingError("bad_audit_options", "audit seeds must be a non-empty list of integers");
  const { world: _, environment, label: __, ...given } = opts;
  const checked = await checkEnvironment(environment ?? world, {
    ...given,
    ...(environment ? { world } : {}),
    preset: "audit",
    seeds,
  }).catch((err: unknown) => ({ checks: [] as CheckResult[], error: errorMessage(err) }));
  const findings: AuditFinding[] = [];
  for (const [id, from] of Object.entries(FROM_KINDS) as [
    AuditCheckId,
    { kind: CheckKind; name?: string },
  ][]) {
    if ("error" in checked) {
      findings.push({ id, title: TITLES[id], status: "failed", evidence: [checked.error] });
      continue;
    }
    const results = checked.checks.filter((c) => c.kind === from.kind && c.name.startsWith(from.name ?? ""));
    const agents = (AGENT_CHECK_KINDS as readonly CheckKind[]).includes(from.kind);
    findings.push(agents ? fromAgentCheck(id, results[0]) : fromChecker(id, results));
  }

  // ---- a world that plays customers: audit each of its simulators (only for such worlds)
  if (isConversationWorld(world)) {
    const evidence: string[] = [];
    const problems: string[] = [];
    for (const simulator of world.customerSimulators) {
      const r = await auditCustomerSimulator({ world, simulator });
      problems.push(...r.problems);
      evidence.push(...formatSimulatorAudit(r).split("\n"));
    }
    findings.push({
      id: "simulator-audit",
      title: TITLES["simulator-audit"],
      status: problems.length ? "failed" : "passed",
      evidence: problems.length ? [...problems, ...evidence] : evidence,
    });
  }

  const order = new Map(AUDIT_CHECKS.map((id, i) => [id, i]));
  findings.sort((x, y) => order.get(x.id)! - order.get(y.id)!);
  return {
    target: opts.label ?? world.id,
    world: world.id,
    ok: findings.every((f) => f.status !== "failed"),
    findings,
  };
}

/** The report as a table: one line per check (`ok`, `FAIL`, `n/c`), its first evidence, then more for a failure. */
export function formatAudit(report: AuditReport): string {
  const mark: Record<AuditStatus, string> = { passed: "ok  ", failed: "FAIL", not_checkable: "n/c " };
  const width = Math.max(...report.findings.map((f) => f.id.length));
  const lines = [
    `audit of ${report.target}${report.target === report.world ? "" : ` (world ${report.world})`}`,
  ];
  for (const f of report.findings) {
    lines.push(`  ${mark[f.status]} ${f.id.padEnd(width)}  ${f.evidence[0] ?? ""}`);
    if (f.status === "failed")
      for (const e of f.evidence.slice(1, 5)) lines.push(`       ${"".padEnd(width)}  ${e}`);
  }
  const failed = report.findings.filter((f) => f.status === "failed").length;
  lines.push(failed ? `✗ ${failed} check(s) failed` : "✓ every check passed");
  return lines.join("\n");
}
