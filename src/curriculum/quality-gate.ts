import type { Agent, AgentSession, TrialSpec } from "../core/contracts.ts";
import { errorMessage } from "../core/errors.ts";
import type { WorldDefinition } from "../core/registry.ts";
import { runTrial } from "../runner/trial.ts";
import type { PlannedTask } from "./split-specs.ts";
import { taskKeyId } from "./task-key.ts";

/** Why a generated task was kept out of the dynamic split, or that it went in. */
export type GateVerdict =
  | { status: "accepted"; contentHash: string; knownGood: { steps: number; actions: string[] } }
  | { status: "rejected"; contentHash: string; reason: "duplicate" | "unsolvable" | "trivial" }
  | { status: "failed"; reason: string };

/** An agent that does nothing useful: it calls a tool no world has until its step budget runs out. */
export const NULL_AGENT: Agent = {
  id: "null",
  start: (): AgentSession => ({ act: async () => ({ tool: "__noop__", args: {} }) }),
};

/**
 * Quality gates for a generated task before it enters the dynamic split: it is deduplicated by content
 * hash (`seen`, updated on acceptance), the world's known-good policy must pass it (solvable) and a
 * null agent must not (not trivial). A generator that throws is `failed` (logged, never fatal).
 */
export async function gateTask(
  world: WorldDefinition,
  planned: PlannedTask,
  seen: Set<string>,
  opts: { maxSteps?: number } = {},
): Promise<GateVerdict> {
  let contentHash: string;
  try {
    contentHash = world.generateTask({
      family: planned.key.family,
      difficulty: planned.key.difficulty,
      seed: planned.seed,
      split: "dynamic",
    }).generator.contentHash;
  } catch (err) {
    return {
      status: "failed",
      reason: `generator failed for ${taskKeyId(planned.key)} seed ${planned.seed}: ${errorMessage(err)}`,
    };
  }
  if (seen.has(contentHash)) return { status: "rejected", contentHash, reason: "duplicate" };
  const spec = (agent: string, maxSteps: number): TrialSpec => ({
    schemaVersion: 1,
    id: `gate-${agent}-${contentHash}`,
    experimentId: "curriculum-gate",
    index: 0,
    world: world.id,
    family: planned.key.family,
    difficulty: planned.key.difficulty,
    seed: planned.seed,
    repeat: 0,
    agent: { id: agent, kind: "scripted", spec: agent },
    budget: { maxSteps, wallTimeoutMs: 60_000 },
  });
  const good = await runTrial(spec(world.knownGood, opts.maxSteps ?? 200), {
    world,
    agent: world.policies[world.knownGood],
    checkAfterEnd: false,
  });
  if (good.outcome !== "passed") return { status: "rejected", contentHash, reason: "unsolvable" };
  const nothing = await runTrial(spec("null", 3), { world, agent: NULL_AGENT, checkAfterEnd: false });
  if (nothing.outcome === "passed") return { status: "rejected", contentHash, reason: "trivial" };
  seen.add(contentHash);
  return {
    status: "accepted",
    contentHash,
    knownGood: { steps: good.steps.length, actions: good.steps.map((s) => s.action.tool) },
  };
}
