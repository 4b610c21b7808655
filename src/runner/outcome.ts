import type { Outcome, Verdict } from "../core/contracts.ts";
import { errorMessage, ProvingError } from "../core/errors.ts";
import { TrialEnd } from "../core/trial-end.ts";

/**
 * The end an error causes, by whose call it escaped (`agent`: start/act; `world`: task generation,
 * reset, step, evaluate). A ProvingError says whose fault it is: infrastructure → `infra_error`,
 * agent → `agent_error`. Anything else an agent throws is `agent_error` (its fault); anything else a
 * world throws is `infra_error`, blamed on the world (`world_crashed`), or on whoever the
 * ProvingError it threw names (a config or internal code).
 */
export function classify(err: unknown, during: "agent" | "world"): TrialEnd {
  if (err instanceof TrialEnd) return err;
  if (err instanceof ProvingError) {
    if (err.fault === "infrastructure")
      return new TrialEnd("infra_error", `${err.code}: ${err.message}`, "infrastructure");
    if (err.fault === "agent") return new TrialEnd("agent_error", `${err.code}: ${err.message}`, "agent");
    if ((err.code as string) === "budget_exhausted") return new TrialEnd("budget_exhausted", err.message);
  }
  if (during === "agent") return new TrialEnd("agent_error", `agent threw: ${errorMessage(err)}`, "agent");
  // the world threw: its fault (`world_crashed`), unless it threw a ProvingError that names another
  const crash =
    err instanceof ProvingError ? err : new ProvingError("world_crashed", errorMessage(err), { cause: err });
  return new TrialEnd("infra_error", `world crashed: ${crash.message}`, crash.fault);
}

/** The outcome of an episode that ended: a violation first, whether it passed or not. */
export function verdictOutcome(v: Verdict): Outcome {
  return v.violations.length > 0 ? "violated" : v.passed ? "passed" : "failed";
}

/** The reason recorded for an episode that ended: its violations, or its failed checks. */
export function verdictReason(v: Verdict): string {
  if (v.violations.length) return `violations: ${[...new Set(v.violations.map((x) => x.code))].join(", ")}`;
  const failed = v.checks.filter((c) => !c.passed).map((c) => `${c.name} (${c.detail})`);
  return failed.length ? `failed checks: ${failed.join("; ")}` : "all checks passed";
}
