/** Shared helpers of the harness tests: a registry + harness, tasks, and stepping shortcuts. */
import type { Action, Environment, StepResult, ToolResult } from "../../src/core/contracts.ts";
import type { JsonObject } from "../../src/core/json.ts";
import { defaultGym } from "../../src/gym/index.ts";
import type { Harness } from "../../src/harness/harness.ts";

/** The built-in gym's harness (its fault rules and hand-offs), over a registry of its own. */
export function makeHarness(): Harness {
  return defaultGym().harness;
}

let n = 0;
export const act = (tool: string, args: JsonObject = {}): Action => ({ tool, args, callId: `c${n++}` });

export async function call(env: Environment, tool: string, args: JsonObject = {}): Promise<ToolResult> {
  const r = await env.step(act(tool, args));
  if (r.observation.kind !== "tool_result") throw new Error("not a tool result");
  return r.observation.result;
}

export async function stepTool(env: Environment, tool: string, args: JsonObject = {}): Promise<StepResult> {
  return env.step(act(tool, args));
}

/** Resets `env` on a task of `world` (family, difficulty, seed), returning the context of the first observation. */
export async function start(
  harness: Harness,
  env: Environment,
  world: string,
  family: string,
  difficulty = 1,
  seed = 0,
  params?: JsonObject,
): Promise<JsonObject> {
  const task = harness.registry
    .world(world)
    .generateTask({ family, difficulty, seed, ...(params ? { params } : {}) });
  const obs = await env.reset({ task, seed, episodeId: `test-${family}-${seed}` });
  if (obs.kind !== "task") throw new Error("reset did not give a task observation");
  return obs.context;
}

/** The world trace the base world keeps (device-support and order-ops both save it as `trace`). */
export function worldTrace(env: Environment): { tool: string; result: ToolResult }[] {
  let saved = env.saveState() as JsonObject;
  while (saved && "layers" in saved && "env" in saved) saved = (saved.env as JsonObject).state as JsonObject;
  return saved.trace as unknown as { tool: string; result: ToolResult }[];
}

export const errCode = (r: ToolResult) => (r.ok ? undefined : r.error.code);
