import { z } from "zod";
import type { Budget } from "../core/contracts.ts";
import { configError } from "../core/errors.ts";
import type { JsonObject, JsonValue } from "../core/json.ts";

export const DEFAULT_BUDGET: Budget = { maxSteps: 200, maxVirtualSeconds: 86_400, wallTimeoutMs: 60_000 };

const budgetSchema = z
  .object({
    maxSteps: z.number().int().min(1).max(1_000_000),
    maxVirtualSeconds: z.number().positive().optional(),
    wallTimeoutMs: z.number().int().positive().optional(),
    maxTokens: z.number().int().positive().optional(),
    maxCostUsd: z.number().positive().optional(),
  })
  .strict();

/** An experiment as a user writes it (JSON or YAML file, or CLI flags). */
export const experimentSchema = z
  .object({
    id: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/, "letters, digits, dot, dash, underscore; at most 128")
      .optional(),
    description: z.string().optional(),
    worlds: z.array(z.string().min(1)).min(1).default(["device-support@1"]),
    /** Task families; empty or absent = every family of each world. */
    families: z.array(z.string().min(1)).optional(),
    difficulties: z.array(z.number().int().min(1)).min(1).default([1, 2, 3]),
    /** Agent specs: a scripted policy name, `./module.mjs`, `openai:MODEL`, ... */
    agents: z.array(z.string().min(1)).min(1).optional(),
    /** Seeds per world × family × difficulty × agent. */
    trials: z.number().int().min(1).default(1),
    /** Base seed: trial i of a cell uses seed + i. */
    seed: z.number().int().default(0),
    /** Repeats of each (task, seed, agent), for pass^k. */
    repeats: z.number().int().min(1).default(1),
    budget: budgetSchema.partial().optional(),
    /** Task parameter overrides, passed to every world's generator. */
    params: z.record(z.string(), z.unknown()).optional(),
    /**
     * Task parameter overrides for one world only, keyed by world id as `worlds` names it
     * (`name@version`, or a bare name: the newest version); merged over `params` for that world.
     */
    worldParams: z.record(z.string().min(1), z.record(z.string(), z.unknown())).optional(),
    /** Harness variants (base world + layers); see the harness docs. */
    variants: z.array(z.unknown()).optional(),
    concurrency: z.number().int().min(1).max(100_000).optional(),
  })
  .strict();

export type ExperimentInput = z.input<typeof experimentSchema>;

export interface ExperimentConfig {
  id?: string;
  description?: string;
  worlds: string[];
  families?: string[];
  difficulties: number[];
  agents: string[];
  trials: number;
  seed: number;
  repeats: number;
  budget: Budget;
  params?: JsonObject;
  /** Per-world task params (key: a world id as `worlds` names it), merged over `params`. */
  worldParams?: Record<string, JsonObject>;
  variants?: JsonValue[];
  concurrency?: number;
}

/**
 * Validates an experiment definition and fills in defaults; errors name the offending field.
 *
 * @example
 * ```ts
 * const config = parseExperiment({ families: ["lost-reply"], agents: ["cautious"], trials: 5 });
 * const result = await runExperiment(config, defaultGym().runOptions());
 * ```
 */
export function parseExperiment(input: unknown, defaultAgents: string[] = []): ExperimentConfig {
  const parsed = experimentSchema.safeParse(input ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue.path.length ? issue.path.join(".") : "experiment";
    throw configError("bad_experiment", `${where}: ${issue.message}`);
  }
  const e = parsed.data;
  const agents = e.agents ?? defaultAgents;
  if (agents.length === 0) throw configError("bad_experiment", "agents: at least one agent is needed");
  return {
    ...(e.id !== undefined ? { id: e.id } : {}),
    ...(e.description !== undefined ? { description: e.description } : {}),
    worlds: e.worlds,
    ...(e.families?.length ? { families: e.families } : {}),
    difficulties: e.difficulties,
    agents,
    trials: e.trials,
    seed: e.seed,
    repeats: e.repeats,
    budget: { ...DEFAULT_BUDGET, ...(e.budget ?? {}) } as Budget,
    ...(e.params ? { params: e.params as JsonObject } : {}),
    ...(e.worldParams ? { worldParams: e.worldParams as Record<string, JsonObject> } : {}),
    ...(e.variants ? { variants: e.variants as JsonValue[] } : {}),
    ...(e.concurrency !== undefined ? { concurrency: e.concurrency } : {}),
  };
}

/** The demo: every family × difficulties 1–3 × every scripted policy, 2 seeds each. */
export const DEMO_EXPERIMENT: ExperimentInput = {
  description: "demo: all device-support families × difficulties 1-3 × all scripted policies",
  worlds: ["device-support@1"],
  difficulties: [1, 2, 3],
  trials: 2,
};
