import type { AdmissibleAction, Environment, Inspection } from "./contracts.ts";
import { ProvingError } from "./errors.ts";

/**
 * The environment's declared inspection, for code that cannot work without it (a test checker, a
 * layer whose inner environment declared it). Code that can do without asks
 * `env.capabilities.inspection` and reports what it could not check.
 */
export function inspectionOf(env: Environment): Inspection {
  const inspection = env.capabilities.inspection;
  if (!inspection) {
    throw new ProvingError(
      "no_inspection",
      `${env.spec.id} offers no inspection (view, state hash, background jobs)`,
    );
  }
  return inspection;
}

/**
 * The environment's admissible actions now, for code that cannot work without them (a learner that
 * chooses among them). Code that can do without asks `env.capabilities.admissible`.
 */
export function admissibleActionsOf(env: Environment): AdmissibleAction[] {
  const admissible = env.capabilities.admissible;
  if (!admissible) {
    throw new ProvingError("capability_missing", `${env.spec.id} declares no admissible actions`);
  }
  return admissible.admissibleActions();
}
