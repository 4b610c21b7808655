import type { Environment } from "../core/contracts.ts";

/**
 * Virtual-time control a world may offer to harness layers (every ToolWorld does): let time pass as if a
 * call took longer, and move a pending background job later. Layers forward both inward.
 */
export interface TimeControl {
  elapse(seconds: number): void;
  /** Moves a pending job `seconds` later; returns its new id, or undefined when it is not pending. */
  deferJob(id: number, seconds: number): number | undefined;
}

/** The environment's time control, or undefined when it offers none. */
export function timeControlOf(env: Environment): TimeControl | undefined {
  const e = env as Partial<TimeControl> & { hasTimeControl?: () => boolean };
  if (typeof e.hasTimeControl === "function") return e.hasTimeControl() ? (e as TimeControl) : undefined;
  return typeof e.elapse === "function" && typeof e.deferJob === "function" ? (e as TimeControl) : undefined;
}
