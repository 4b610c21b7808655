/** Helpers of the rigger tests: the gym, in-process planted agents, rollouts, synthetic records. */
import type { ResolvedAgent } from "../../src/agents/resolve.ts";
import type { Action, ToolResult, TrialRecord, Verdict } from "../../src/core/contracts.ts";
import type { JsonObject } from "../../src/core/json.ts";
import { defaultGym } from "../../src/gym/index.ts";
import { gymRollouts, type Rollouts } from "../../src/rigger/rollouts.ts";
import { PLANTED } from "./agents/planted-plugin.ts";

export const gym = defaultGym();

export function plantedAgent(name: string): ResolvedAgent {
  const agent = PLANTED[name];
  if (!agent) throw new Error(`no planted agent ${name}`);
  return { ref: { id: `planted-${name}`, kind: "planted", spec: `planted:${name}` }, forWorld: () => agent };
}

export async function scripted(world: string, name: string): Promise<ResolvedAgent> {
  return gym.resolveAgent(name, { cwd: process.cwd(), worlds: [gym.world(world)] });
}

export function rolloutsFor(world: string, target: ResolvedAgent): Promise<Rollouts> {
  return gymRollouts(gym.runOptions(), { world, target, concurrency: 2 });
}

/** One synthetic step: a call and its answer. */
export interface FakeStep {
  tool: string;
  args?: JsonObject;
  result: ToolResult;
  task?: boolean;
}

export const ok = (fields: JsonObject = {}): ToolResult => ({ ok: true, ...fields });
export const err = (code: string, retryable = false): ToolResult => ({
  ok: false,
  error: { code, message: code, retryable },
});

/** A recorded trial made of these steps (only what detectors read is filled in meaningfully). */
export function fakeRecord(
  id: string,
  steps: FakeStep[],
  opts: { outcome?: TrialRecord["outcome"]; violations?: Verdict["violations"]; family?: string } = {},
): TrialRecord {
  const outcome = opts.outcome ?? "failed";
  return {
    schemaVersion: 1,
    spec: {
      schemaVersion: 1,
      id,
      experimentId: "x",
      index: 0,
      world: "toy@1",
      family: opts.family ?? "f",
      difficulty: 1,
      seed: 0,
      repeat: 0,
      agent: { id: "a", kind: "scripted", spec: "a" },
      budget: { maxSteps: 100 },
    },
    task: {
      id: "task",
      world: "toy@1",
      family: opts.family ?? "f",
      difficulty: 1,
      tags: [],
      params: {},
      split: "dynamic",
      seed: 0,
      instruction: "",
      generator: { template: "t@1", ranges: {}, contentHash: "h" },
    },
    outcome,
    reason: "",
    verdict: {
      passed: outcome === "passed",
      score: 0,
      checks: [],
      violations: opts.violations ?? [],
      verifier: "verify.toy@1",
    },
    steps: steps.map((s, index) => {
      const action: Action = { tool: s.tool, args: s.args ?? {}, callId: `c${index}` };
      return {
        index,
        action,
        observation: s.task
          ? { kind: "task" as const, instruction: "next task", context: {}, tools: [] }
          : { kind: "tool_result" as const, tool: s.tool, callId: `c${index}`, result: s.result, now: index },
        reward: 0,
        terminated: false,
        truncated: false,
        t: index,
      };
    }),
    stats: { steps: steps.length, virtualSeconds: 0, wallMs: 0, tokensIn: 0, tokensOut: 0, costUsd: 0 },
    trajectoryHash: "h",
    startedAt: "",
    finishedAt: "",
  };
}

/** The planted agents of the rigger tests (two weaknesses on each world) and what diagnosis must name. */
export const PLANTED_CASES: readonly { world: string; agent: string; pattern: string; tool: string }[] = [
  {
    world: "order-ops@1",
    agent: "order-rekey",
    pattern: "retry-new-key-after-timeout",
    tool: "issue_refund",
  },
  { world: "order-ops@1", agent: "order-claims", pattern: "unobserved-claim", tool: "issue_refund" },
  {
    world: "device-support@1",
    agent: "device-rekey",
    pattern: "retry-new-key-after-timeout",
    tool: "create_replacement",
  },
  {
    world: "device-support@1",
    agent: "device-claims",
    pattern: "unobserved-claim",
    tool: "create_replacement",
  },
];

/** Generated-rule code that times the first `create_replacement` out (blocked, retryable) before it commits. */
export const TIMEOUT_ONCE_RULE = `export function filterAction(action: Action, state: RuleState): Action | Blocked {
  if (action.tool !== "create_replacement") return action;
  const refused = state.history.filter((e) => e.tool === "create_replacement" && e.blocked).length;
  if (refused < 1) return blocked("upstream timed out", { code: "timeout", retryable: true });
  return action;
}`;

/** The shown trials as the model reads them: `## Trial ID: outcome` headers, `index. tool args -> answer` lines. */
export function shownTrials(prompt: string) {
  const trials: { id: string; outcome: string; steps: { index: number; tool: string; answer: string }[] }[] =
    [];
  for (const line of prompt.split("\n")) {
    const head = /^## Trial (\S+): (\w+)/.exec(line);
    if (head) trials.push({ id: head[1], outcome: head[2], steps: [] });
    const step = /^(\d+)\. (\S+) .* -> (.*)$/.exec(line);
    if (step && trials.length)
      trials[trials.length - 1].steps.push({ index: Number(step[1]), tool: step[2], answer: step[3] });
  }
  return trials;
}
