import { errorMessage } from "../core/errors.ts";
import type { WorldDefinition } from "../core/registry.ts";
import { type GateVerdict, gateTask } from "./quality-gate.ts";
import type { PlannedTask } from "./split-specs.ts";

/** One task to pre-generate: a base-world key (variants share their base world's tasks) and a seed. */
export type GenerationRequest = PlannedTask;

/** What gating one request gave, with the time its generation and gates took. */
export interface GenerationOutcome {
  request: GenerationRequest;
  verdict: GateVerdict;
  /** The generated task (instruction and params), for the review queue; absent when generation failed. */
  task?: { instruction: string; params: unknown; tags: string[] };
  ms: number;
}

/**
 * Generates and gates one request (`gateTask` with an empty `seen`: deduplication is the caller's,
 * across the whole pool). Never throws: a throwing generator is a `failed` verdict; one that takes
 * longer than `budgetMs` (by `clock`, in ms) is `failed` too (too slow to rely on at trial time).
 */
export async function generateOne(
  world: WorldDefinition,
  request: GenerationRequest,
  opts: { budgetMs?: number; clock: () => number; maxSteps?: number },
): Promise<GenerationOutcome> {
  const start = opts.clock();
  let verdict: GateVerdict;
  let task: GenerationOutcome["task"];
  try {
    const t = world.generateTask({
      family: request.key.family,
      difficulty: request.key.difficulty,
      seed: request.seed,
      split: "dynamic",
    });
    task = { instruction: t.instruction, params: t.params, tags: t.tags };
    const generatedMs = opts.clock() - start;
    verdict =
      opts.budgetMs !== undefined && generatedMs > opts.budgetMs
        ? {
            status: "failed",
            reason: `generator too slow: ${generatedMs.toFixed(0)} ms > ${opts.budgetMs} ms`,
          }
        : await gateTask(world, request, new Set(), opts.maxSteps ? { maxSteps: opts.maxSteps } : {});
  } catch (err) {
    verdict = { status: "failed", reason: `generation failed: ${errorMessage(err)}` };
  }
  return { request, verdict, ...(task ? { task } : {}), ms: opts.clock() - start };
}
