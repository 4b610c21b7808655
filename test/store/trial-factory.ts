import type { Outcome, StepRecord, Task, TrialRecord, TrialSpec, Verdict } from "../../src/core/contracts.ts";

/** A planned trial, built by hand from the contract types. */
export function makeSpec(experimentId: string, index: number, overrides: Partial<TrialSpec> = {}): TrialSpec {
  return {
    schemaVersion: 1,
    id: `${experimentId}/t${String(index).padStart(4, "0")}`,
    experimentId,
    index,
    world: "device-support@1",
    family: index % 2 === 0 ? "refund" : "reset",
    difficulty: 1 + (index % 3),
    seed: 1000 + index,
    repeat: 0,
    agent: { id: "cautious", kind: "scripted", spec: "cautious", config: { patience: 3 } },
    budget: { maxSteps: 20, maxVirtualSeconds: 600, wallTimeoutMs: 30000 },
    ...overrides,
  };
}

function makeTask(spec: TrialSpec): Task {
  return {
    id: `${spec.family}-${spec.seed}`,
    world: spec.world,
    family: spec.family,
    difficulty: spec.difficulty,
    tags: ["unit", spec.family],
    params: { customer: "c-17", devices: [{ id: "d1", state: "broken" }], nested: { a: [1, 2.5, null] } },
    split: "regression",
    seed: spec.seed,
    instruction: 'Help the customer with their device. Ünïcödé ✓ and "quotes"\nand newlines.',
    generator: { template: `${spec.family}@1`, ranges: { devices: [1, 3] }, contentHash: "abc123" },
  };
}

function makeStep(index: number, setup: boolean): StepRecord {
  const callId = `c${index}`;
  const step: StepRecord = {
    index,
    action: {
      tool: index === 0 ? "lookup_customer" : "reset_device",
      args: { id: "d1", force: index > 1 },
      callId,
    },
    observation: {
      kind: "tool_result",
      tool: "reset_device",
      callId,
      result:
        index === 2
          ? { ok: false, error: { code: "rate_limited", message: "slow down", retryable: true } }
          : { ok: true, device: { id: "d1", state: "ok" }, attempts: index },
      now: 1.5 * (index + 1),
    },
    reward: index === 3 ? 1 : 0,
    terminated: false,
    truncated: false,
    t: 1.5 * (index + 1),
    layers: ["rule.lose-reply@1"],
    meta: { tokensIn: 100 + index, tokensOut: 20, costUsd: 0.0001, latencyMs: 12, cached: false },
  };
  if (setup) step.setup = true;
  return step;
}

export interface RecordOptions {
  outcome?: Outcome;
  steps?: number;
  /** `false` for a trial that never reached the verifier. */
  verdict?: boolean;
  reason?: string;
}

/** A complete trial record: task, initial observation, steps, verdict (unless told otherwise). */
export function makeRecord(spec: TrialSpec, opts: RecordOptions = {}): TrialRecord {
  const outcome = opts.outcome ?? "passed";
  const stepCount = opts.steps ?? 4;
  const steps = Array.from({ length: stepCount }, (_, i) => makeStep(i, i === 0));
  if (steps.length > 0) steps[steps.length - 1]!.terminated = true;
  const verdict: Verdict = {
    passed: outcome === "passed",
    score: outcome === "passed" ? 1 : 0.25,
    checks: [
      { name: "device_reset", passed: true, detail: "device d1 is ok" },
      { name: "customer_told", passed: outcome === "passed", detail: "" },
    ],
    violations:
      outcome === "violated"
        ? [
            { code: "double_refund", step: 2, detail: "refunded twice" },
            { code: "pii_leak", step: -1, detail: "" },
          ]
        : [],
    verifier: "verify.device-support@1",
  };
  const task = makeTask(spec);
  const record: TrialRecord = {
    schemaVersion: 1,
    spec,
    task,
    outcome,
    reason: opts.reason ?? `ended: ${outcome}`,
    initial: { kind: "task", instruction: task.instruction, context: { customer: "c-17" }, tools: [] },
    steps,
    stats: {
      steps: stepCount,
      virtualSeconds: 1.5 * stepCount,
      wallMs: 42.5,
      tokensIn: 400,
      tokensOut: 80,
      costUsd: 0.0123,
    },
    trajectoryHash: `h-${spec.id}-${outcome}-${stepCount}`,
    startedAt: "2025-01-02T03:04:05.000Z",
    finishedAt: "2025-01-02T03:04:06.500Z",
  };
  if (opts.verdict !== false) record.verdict = verdict;
  return record;
}
