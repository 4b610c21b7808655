import type { EnvSpec } from "../../core/contracts.ts";
import type { AgentSweep } from "../agent-sweep.ts";
import type { CheckRun } from "../check-run.ts";
import type { EpisodePlayer } from "../play-episode.ts";
import type { CheckKind, DeclaredCapabilities } from "../report.ts";
import type { Subject } from "../subject.ts";

/** One check of the plan, before it runs. */
export interface PlannedCheck {
  name: string;
  kind: CheckKind;
  /** Why it cannot be checked here (a capability the environment does not declare, nothing selected). */
  notCheckable?: string;
  /** What it covers, when it passes. */
  covers?: string;
  run(run: CheckRun): Promise<void>;
}

/** What every check is planned from: the subject, and the spec and capabilities a fresh instance declares. */
export interface CheckPlan {
  subject: Subject;
  spec: EnvSpec;
  capabilities: DeclaredCapabilities;
  /** Plays the reference agents' episodes (numbered across the checks that play). */
  player: EpisodePlayer;
  /** The reference agents' sweep, played once by the first check that asks for it. */
  agents(): Promise<AgentSweep>;
}

/** The reason a per-family check has no cell to run on, if it has none. */
export function noCells(plan: CheckPlan, family: string): string | undefined {
  return plan.subject.cells(family).length === 0
    ? `no difficulty of ${family} is selected (declared: ${plan.subject.world.families.find((f) => f.name === family)?.difficulties.join(", ")})`
    : undefined;
}

export const NO_INSPECTION =
  "the environment declares no inspection (state hash, pending background jobs): env.capabilities.inspection";
