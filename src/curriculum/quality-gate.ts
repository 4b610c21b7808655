import { errorMessage } from "../core/errors.ts";
import type { WorldDefinition } from "../core/registry.ts";
import { gateEpisodes } from "../testing/index.ts";
import type { PlannedTask } from "./split-specs.ts";
import { taskKeyId } from "./task-key.ts";

/** Why a generated task was kept out of the dynamic split, or that it went in. */
export type GateVerdict =
  | { status: "accepted"; contentHash: string; knownGood: { steps: number; actions: string[] } }
  | { status: "rejected"; contentHash: string; reason: "duplicate" | "unsolvable" | "trivial" }
  | { status: "failed"; reason: string };

/** The one null agent lives with the checker (src/testing); the curriculum has exported it by this name. */
export { NULL_AGENT } from "../testing/index.ts";

/**
 * Quality gates for a generated task before it enters the dynamic split: it is deduplicated by content
 * hash (`seen`, updated on acceptance), the world's known-good policy must pass it (solvable) and the
 * null agent must not (not trivial): the gate preset of the checker (`gateEpisodes`, src/testing). A
 * generator that throws is `failed` (logged, never fatal).
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
  const gate = await gateEpisodes(
    world,
    { family: planned.key.family, difficulty: planned.key.difficulty, seed: planned.seed },
    contentHash,
    opts,
  );
  if (gate.status === "rejected") return { status: "rejected", contentHash, reason: gate.reason };
  seen.add(contentHash);
  const good = gate.knownGood;
  return {
    status: "accepted",
    contentHash,
    knownGood: { steps: good.steps.length, actions: good.steps.map((s) => s.action.tool) },
  };
}
