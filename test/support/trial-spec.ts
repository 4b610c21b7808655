/** Hand-made planned trials for runner tests (no experiment or manifest needed). */
import type { TrialSpec } from "../../src/core/contracts.ts";
import { TOY_ID } from "./toy-world.ts";

let n = 0;

/** A planned trial of the toy world (family `reach`, difficulty 1, seed 0), with overrides. */
export function trialSpec(overrides: Partial<TrialSpec> = {}): TrialSpec {
  const index = n++;
  return {
    schemaVersion: 1,
    id: `t-test-${index}`,
    experimentId: "exp-test",
    index,
    world: TOY_ID,
    family: "reach",
    difficulty: 1,
    seed: 0,
    repeat: 0,
    agent: { id: "hand-made", kind: "test", spec: "hand-made" },
    budget: { maxSteps: 50, maxVirtualSeconds: 10_000, wallTimeoutMs: 30_000 },
    ...overrides,
  };
}
