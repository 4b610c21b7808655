import type {
  AgentSession,
  Environment,
  IsolationCheck,
  Observation,
  Outcome,
  StepRecord,
  Task,
  TrialSpec,
  TrialStats,
  Verdict,
} from "../core/contracts.ts";
import type { Fault } from "../core/errors.ts";
import type { EpisodeEnd } from "./env-pool.ts";

/**
 * One trial while it runs: what its phases (start, clean-start check, step loop, after-end check,
 * record) fill in, in that order. A field a phase never reached stays unset, and the record says so.
 */
export interface TrialState {
  readonly spec: TrialSpec;
  /** Setup steps first, then the agent's steps. */
  readonly steps: StepRecord[];
  readonly stats: TrialStats;
  task: Task | undefined;
  env: Environment | undefined;
  /** The reused instance's last episode (with an environment pool). */
  previous: EpisodeEnd | undefined;
  /** The observation after reset: set once the world was reset. */
  initial: Observation | undefined;
  session: AgentSession | undefined;
  verdict: Verdict | undefined;
  outcome: Outcome;
  reason: string;
  /** Who is at fault when an error ended the trial. */
  fault: Fault | undefined;
  cleanStart: IsolationCheck;
  afterEnd: IsolationCheck;
}

export function newTrialState(spec: TrialSpec): TrialState {
  return {
    spec,
    steps: [],
    stats: { steps: 0, virtualSeconds: 0, wallMs: 0, tokensIn: 0, tokensOut: 0, costUsd: 0 },
    task: undefined,
    env: undefined,
    previous: undefined,
    initial: undefined,
    session: undefined,
    verdict: undefined,
    outcome: "failed",
    reason: "",
    fault: undefined,
    cleanStart: "not_checkable",
    afterEnd: "not_checkable",
  };
}
