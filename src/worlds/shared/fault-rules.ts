import type { Task } from "../../core/contracts.ts";
import type { ToolWorldState } from "../../core/tool-world.ts";
import { FAULT_RULES } from "../../harness/faults/index.ts";
import { taskRules } from "../../harness/task-rules.ts";
import type { LayerSpec } from "../../harness/variant.ts";
import type { RateLimit } from "./difficulty-ranges.ts";

/** The service-fault knobs a task's difficulty sets (task params, hidden from agents). */
export interface ServiceFaultParams {
  /** `limit` calls per `window` seconds on the world's polling tools (`limit: 0`: none). */
  rateLimit: RateLimit;
  /** Tools whose first call answers `unavailable`; a tool listed n times, its first n calls. */
  transientUnavailable: string[];
}

/**
 * The rules a task's service faults are, written as a variant's layers (innermost first): the rate
 * limit (`rule.rate-limit@1` on the world's polling tools), then the transient faults
 * (`rule.unavailable@1` with `times`), which see a call first, so a call they refuse is not counted
 * by the limit.
 */
export function serviceFaultRules(p: ServiceFaultParams, rateLimitedTools: Iterable<string>): LayerSpec[] {
  const rules: LayerSpec[] = [];
  if (p.rateLimit.limit > 0) {
    rules.push({
      id: "rule.rate-limit@1",
      params: { tools: [...rateLimitedTools], limit: p.rateLimit.limit, window: p.rateLimit.window },
    });
  }
  const times = new Map<string, number>();
  for (const tool of p.transientUnavailable) times.set(tool, (times.get(tool) ?? 0) + 1);
  for (const [tool, n] of times)
    rules.push({ id: "rule.unavailable@1", params: { tools: [tool], times: n } });
  return rules;
}

/**
 * The dispatch rules of a tool world whose tasks carry `ServiceFaultParams`: the task's service faults,
 * applied by the harness's rule mechanism at the world's dispatch point, from the built-in fault library
 * (fixed with the world's version, whatever rules a gym adds for its variants).
 */
export function serviceFaultDispatch<S extends ToolWorldState>(rateLimitedTools: Iterable<string>) {
  const tools = [...rateLimitedTools];
  return taskRules<S>({
    rules: (task: Task) => serviceFaultRules(task.params as unknown as ServiceFaultParams, tools),
    library: FAULT_RULES,
  });
}
