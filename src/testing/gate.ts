/**
 * The quality gate's preset (`PRESETS.gate`): is one task solvable (the known-good policy passes it)
 * and not trivial (the null agent does not)? Both are played through the runner, judged by
 * `brokenPromise`. The curriculum's `gateTask` dedupes and generates; this decides.
 */
import type { TrialRecord, TrialSpec } from "../core/contracts.ts";
import type { WorldDefinition } from "../core/registry.ts";
import { runTrial } from "../runner/trial.ts";
import { brokenPromise, SOLVES, SOLVES_NOTHING } from "./expectations.ts";
import { PRESETS } from "./presets.ts";
import { NULL_AGENT } from "./reference-agents.ts";
import type { Cell } from "./subject.ts";

export type GateOutcome =
  | { status: "accepted"; knownGood: TrialRecord }
  | { status: "rejected"; reason: "unsolvable" | "trivial" };

/**
 * Plays the world's known-good policy on the task (budget `maxSteps`, default 200), then the null
 * agent (3 steps); `id` names the trials (`gate-<agent>-<id>`).
 */
export async function gateEpisodes(
  world: WorldDefinition,
  cell: Cell,
  id: string,
  opts: { maxSteps?: number } = {},
): Promise<GateOutcome> {
  const preset = PRESETS.gate;
  const spec = (agent: string, maxSteps: number): TrialSpec => ({
    schemaVersion: 1,
    id: `gate-${agent}-${id}`,
    experimentId: "curriculum-gate",
    index: 0,
    world: world.id,
    family: cell.family,
    difficulty: cell.difficulty,
    seed: cell.seed,
    repeat: 0,
    agent: { id: agent, kind: "scripted", spec: agent },
    budget: { maxSteps, wallTimeoutMs: 60_000 },
  });
  const good = await runTrial(spec(world.knownGood, opts.maxSteps ?? preset.maxSteps), {
    world,
    agent: world.policies[world.knownGood],
    checkAfterEnd: false,
  });
  if (brokenPromise(SOLVES, good)) return { status: "rejected", reason: "unsolvable" };
  const nothing = await runTrial(spec(NULL_AGENT.id, preset.nullSteps), {
    world,
    agent: NULL_AGENT,
    checkAfterEnd: false,
  });
  if (brokenPromise(SOLVES_NOTHING, nothing)) return { status: "rejected", reason: "trivial" };
  return { status: "accepted", knownGood: good };
}
