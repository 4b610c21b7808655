/**
 * The core contracts of Proving Ground (names are normative; see docs/design.md).
 * Everything here is plain data or an interface: no clock, no randomness, no IO.
 */
import type { Fault } from "./errors.ts";
import type { JsonObject, JsonValue } from "./json.ts";
import type { Job } from "./scheduler.ts";

// ---------------------------------------------------------------- tools and observations

/** A tool as an agent sees it: its name, what it does, and the JSON Schema of its one argument object. */
export interface ToolDescriptor {
  name: string;
  description: string;
  input_schema: JsonObject;
}

export interface ToolError {
  code: string;
  message: string;
  retryable: boolean;
}

/** Every tool answers `{ok: true, ...}` or `{ok: false, error}`; a failed call never ends the episode. */
export type ToolResult = ({ ok: true } & JsonObject) | { ok: false; error: ToolError };

/** One tool call. An LLM reply with several tool calls becomes several consecutive actions. */
export interface Action {
  tool: string;
  args: JsonObject;
  callId: string;
}

/** What an agent returns: an action, the call id optional (the runner numbers it), plus accounting. */
export interface AgentAction {
  tool: string;
  args: JsonObject;
  callId?: string;
  meta?: ActionMeta;
}

/** Accounting an agent may attach to an action (LLM agents: tokens, cost, latency, cache hits). */
export interface ActionMeta {
  tokensIn?: number;
  tokensOut?: number;
  costUsd?: number;
  latencyMs?: number;
  cached?: boolean;
  [key: string]: JsonValue | undefined;
}

export interface TaskObservation {
  kind: "task";
  instruction: string;
  context: JsonObject;
  tools: ToolDescriptor[];
}

export interface ToolResultObservation {
  kind: "tool_result";
  tool: string;
  callId: string;
  result: ToolResult;
  /** Virtual seconds since the episode started. */
  now: number;
}

export type Observation = TaskObservation | ToolResultObservation;

export interface StepInfo {
  now: number;
  /** Set on the step that ends the episode. */
  verdict?: Verdict;
  /** Harness layers that acted on this step, outermost last. */
  layers?: string[];
  /** True for steps replayed by a Setup layer rather than chosen by the agent. */
  setup?: boolean;
  [key: string]: JsonValue | Verdict | undefined;
}

export interface StepResult {
  observation: Observation;
  reward: number;
  terminated: boolean;
  truncated: boolean;
  info: StepInfo;
}

// ---------------------------------------------------------------- tasks and verdicts

export type Split = "regression" | "dynamic" | "heldout";

export interface TaskGenerator {
  /** Template id, `name@version`. */
  template: string;
  /** Parameter ranges the generator drew from at this difficulty. */
  ranges: JsonObject;
  /** Hash of the generated task content (everything but this field). */
  contentHash: string;
}

export interface Task {
  id: string;
  world: string;
  family: string;
  difficulty: number;
  tags: string[];
  /** Everything the world needs to build the start state; hidden from agents. */
  params: JsonObject;
  split: Split;
  seed: number;
  instruction: string;
  generator: TaskGenerator;
}

export interface TaskRequest {
  family: string;
  difficulty: number;
  seed: number;
  params?: JsonObject;
  split?: Split;
}

export interface Check {
  name: string;
  passed: boolean;
  detail: string;
}

export interface Violation {
  code: string;
  /** Index of the step (0-based, in the world's trace) where it happened; -1 when not tied to a step. */
  step: number;
  detail: string;
}

export interface Verdict {
  passed: boolean;
  score: number;
  checks: Check[];
  violations: Violation[];
  /** Id of the verifier that judged, `verify.<world>@<version>`. */
  verifier: string;
}

// ---------------------------------------------------------------- environments

export interface EnvSpec {
  /** `name@version`, e.g. `device-support@1`; for a stacked variant, the variant id. */
  id: string;
  /** The base world's id, whatever layers wrap it. */
  world: string;
  tools: ToolDescriptor[];
  /** Tools whose successful call ends the episode. */
  terminalTools: string[];
  /** Id of the frozen verifier, `verify.<world>@<version>`. */
  verifier: string;
}

export interface ResetOptions {
  task: Task;
  seed: number;
  /** Owner of background jobs scheduled in this episode; defaults to the task id and seed. */
  episodeId?: string;
}

/**
 * Read-only inspection of an environment's state: what the runner's isolation checks and harness
 * rules read. A world that keeps its state in this process offers it; a remote one may not.
 */
export interface Inspection {
  /** Read-only, data-only view of the current state (for harness rules). Do not mutate. */
  view(): Readonly<JsonObject>;
  /** Hash of the world state (not of the episode bookkeeping); equal after reset for equal (task, seed). */
  stateHash(): string;
  /** Background jobs not yet fired. */
  pendingJobs(): readonly Job[];
  /** Jobs that fired although their episode had ended or belonged to another episode (a leak). */
  leakedJobs(): number;
}

/**
 * Tells the world what the agent actually received for the last step, when a layer changed it, so
 * evidence-aware checks judge what the agent saw. Layers forward it inward.
 */
export interface Delivery {
  delivered(observation: Observation): void;
}

/**
 * Virtual-time control a world may offer to harness layers: let time pass as if a call took longer,
 * and move a pending background job later. Layers forward both inward.
 */
export interface TimeControl {
  elapse(seconds: number): void;
  /** Moves a pending job `seconds` later; returns its new id, or undefined when it is not pending. */
  deferJob(id: number, seconds: number): number | undefined;
}

/** A step a Setup layer replayed after reset: in the trace, marked `info.setup`, not an agent step. */
export interface ReplayedStep extends StepResult {
  action: Action;
}

/** Steps replayed after reset before the agent's first action (Setup layers). */
export interface SetupSteps {
  /** The steps replayed in the current episode, innermost layer first. */
  setupSteps(): ReplayedStep[];
}

/** One fully specified tool call, with its arguments exactly as an agent would send them. */
export interface AdmissibleAction {
  tool: string;
  args: JsonObject;
}

/**
 * The tool calls a deployed agent could reasonably make now (TextWorld's admissible commands,
 * AgentGym's available actions): a bounded (at most `MAX_ADMISSIBLE_ACTIONS`), deterministic list
 * built only from what the observations so far showed (ids, fields, the agent's own earlier
 * arguments), never from the task's hidden params. Every call's arguments validate against its
 * tool's JSON Schema. Small policies learn over it; an LLM agent may be shown it.
 */
export interface AdmissibleActions {
  /**
   * The list for the current observation: same state, same list, in the same order. `unseen`: calls
   * the agent made that never reached this environment (a layer around it answered them itself);
   * what the agent sent and received in them counts as seen, like its calls here.
   */
  admissibleActions(unseen?: readonly UnseenCall[]): AdmissibleAction[];
  /**
   * How the list spells `action` (what a conformance check compares): an idempotency key the agent
   * generated now becomes the list's fresh key, free text the list's text; the rest is unchanged.
   * An admissible action canonicalises to an entry of the list. Absent: compared as it is.
   */
  canonicalAction?(
    action: { tool: string; args: JsonObject },
    unseen?: readonly UnseenCall[],
  ): AdmissibleAction;
  /**
   * What `canonicalAction` needs besides the list, as data: sent with a list over the wire, so a
   * client spells an action as the world would. Undefined: actions are compared as they are.
   */
  canonicalForm?(): AdmissibleCanonicalForm | undefined;
}

/** How a list spells actions: which arguments are idempotency keys, and the text of free-text ones. */
export interface AdmissibleCanonicalForm {
  /** Arguments that are idempotency keys: one the list does not offer becomes its freshest `key-<n>`. */
  keyArgs: string[];
  /** Free-text arguments, by `tool.arg` or `arg`: any text becomes this one. */
  texts: Record<string, string>;
}

/** A call of the agent a layer answered itself: what it sent, and what it received. */
export interface UnseenCall {
  tool: string;
  args: JsonObject;
  result: ToolResult;
}

/** The most calls an admissible-actions list holds. */
export const MAX_ADMISSIBLE_ACTIONS = 64;

/**
 * What an environment offers beyond the required core, declared by the environment itself (never
 * found by probing for methods). An absent capability is one the environment does not have: the
 * runner then reports the checks that need it as not checkable instead of passing them vacuously.
 */
export interface EnvironmentCapabilities {
  readonly inspection?: Inspection;
  readonly delivery?: Delivery;
  readonly timeControl?: TimeControl;
  readonly setup?: SetupSteps;
  /** The tool calls an agent could make now, from what it has seen (optional: a client asks for it). */
  readonly admissible?: AdmissibleActions;
}

/** What an agent acts on. A harness layer is one too. */
export interface Environment {
  readonly spec: EnvSpec;
  reset(opts: ResetOptions): Promise<Observation>;
  step(action: Action): Promise<StepResult>;
  observe(): Observation;
  /** Delegates to the frozen verifier of the base world. */
  evaluate(): Verdict;
  /** Data only: no sockets, timers or handles. Restore with the registered factory. */
  saveState(): JsonValue;
  /** The optional capabilities this environment declares. */
  readonly capabilities: EnvironmentCapabilities;
  /**
   * Gives back what the instance holds outside this process (a remote server's session, which a
   * server has few of). Optional: an in-process world holds nothing. The runner calls it once it is
   * done with an instance (the trial ended, however it ended); the instance is not used after.
   */
  close?(): Promise<void>;
}

// ---------------------------------------------------------------- agents

/**
 * What an agent is told when its episode starts: only what a deployed agent would see. No task id,
 * family, difficulty or seed (from those the hidden start state can be regenerated), no trial id (the
 * store's key). The runner hands every agent its own copy.
 */
export interface EpisodeInfo {
  /** Opaque id of this episode (for the agent's logs): derived one-way from the trial and a secret of the run. */
  episodeId: string;
  world: string;
  instruction: string;
  tools: ToolDescriptor[];
  /** A seed for the agent's own randomness: derived like `episodeId`, it reveals nothing of the task's seed. */
  samplingSeed: number;
}

/** What a session is given with each observation besides it, when its agent asks for it. */
export interface ActContext {
  /**
   * The environment's admissible actions now (a copy), given when the agent declares
   * `usesAdmissibleActions`: fully specified calls built only from what the observations showed.
   */
  admissible?: readonly AdmissibleAction[];
  /**
   * Wall-clock milliseconds left in the trial's budget when `act` was called (absent: no limit). An
   * agent that waits on something failing (a provider's retries) stops before this runs out and
   * throws that failure, so the trial ends as the infrastructure's fault, not the agent's `timeout`.
   */
  timeLeftMs?: number;
}

export interface AgentSession {
  act(observation: Observation, context?: ActContext): Promise<AgentAction>;
  end?(record: TrialRecordSummary): Promise<void>;
}

export interface Agent {
  readonly id: string;
  /**
   * The agent chooses among the environment's admissible actions: the runner passes the current list
   * to `act` (`context.admissible`). A trial whose environment declares none ends `infra_error`
   * (fault: config) before the agent acts.
   */
  readonly usesAdmissibleActions?: boolean;
  start(episode: EpisodeInfo): AgentSession | Promise<AgentSession>;
}

/** What an agent session is told when its trial ends. */
export interface TrialRecordSummary {
  /** The opaque episode id the agent was told at start (never the trial id: that keys the store). */
  episodeId: string;
  outcome: Outcome;
  verdict?: Verdict;
  /** The observation that answered the agent's last action, when the trial took one. */
  last?: Observation;
}

// ---------------------------------------------------------------- trials

export const OUTCOMES = [
  "passed",
  "failed",
  "violated",
  "budget_exhausted",
  "timeout",
  "agent_error",
  "infra_error",
  "contaminated",
  "missing",
] as const;
export type Outcome = (typeof OUTCOMES)[number];

/**
 * Outcomes that say nothing about the agent: the infrastructure failed (`infra_error`), the start state
 * was not clean (`contaminated`), the trial never ran (`missing`). Nothing learns from them (training
 * exports, curriculum samplers, difficulty, learners); they are counted apart.
 */
export const INFRA_OUTCOMES: readonly Outcome[] = ["infra_error", "contaminated", "missing"];

/** Whether an outcome is one of `INFRA_OUTCOMES` (the attempt says nothing about the agent). */
export function isInfraOutcome(outcome: string): boolean {
  return (INFRA_OUTCOMES as readonly string[]).includes(outcome);
}

export interface Budget {
  maxSteps: number;
  maxVirtualSeconds?: number;
  wallTimeoutMs?: number;
  maxTokens?: number;
  maxCostUsd?: number;
}

/** How to build an agent again: enough to re-run a trial from its record. */
export interface AgentRef {
  /** Display id, e.g. `cautious`, `module:examples/policy.mjs`, `openai:gpt-4o`. */
  id: string;
  kind: string;
  /** What the user passed (`cautious`, `./policy.mjs`, `openai:gpt-4o`). */
  spec: string;
  config?: JsonObject;
}

export interface TrialSpec {
  schemaVersion: 1;
  id: string;
  experimentId: string;
  index: number;
  /** Base world id, `name@version`. */
  world: string;
  /** Variant (harness layers) when not the bare world; its id is in `variantId`. */
  variant?: JsonValue;
  variantId?: string;
  family: string;
  difficulty: number;
  seed: number;
  repeat: number;
  /** Task parameter overrides given to the world's generator. */
  params?: JsonObject;
  /**
   * The split the trial belongs to, when it was planned from a split file (a curriculum episode is
   * `dynamic`, its evaluations `regression` / `heldout`); given to the world's generator so the task
   * (and the record) carries it. Absent: the world's default (`regression`).
   */
  split?: Split;
  agent: AgentRef;
  budget: Budget;
}

export interface StepRecord {
  index: number;
  /** The observation the action answered. */
  action: Action;
  observation: Observation;
  reward: number;
  terminated: boolean;
  truncated: boolean;
  /** Virtual seconds after the step. */
  t: number;
  setup?: boolean;
  layers?: string[];
  meta?: ActionMeta;
}

export interface TrialStats {
  steps: number;
  virtualSeconds: number;
  wallMs: number;
  tokensIn: number;
  tokensOut: number;
  costUsd: number;
}

/**
 * How one of the runner's isolation checks went: `not_checkable` when the environment declares no
 * inspection (a remote world), never a silent pass.
 */
export type IsolationCheck = "passed" | "failed" | "not_checkable";

export interface TrialIsolation {
  /** Reset left a clean start: no foreign jobs, the state of a fresh instance and of earlier trials of the task. */
  cleanStart: IsolationCheck;
  /** Nothing touched the world after its episode ended, and no job of another episode fired. */
  afterEnd: IsolationCheck;
}

export interface TrialRecord {
  schemaVersion: 1;
  spec: TrialSpec;
  task: Task;
  outcome: Outcome;
  reason: string;
  /**
   * Who is at fault when an error caused the outcome: `agent` (an `agent_error`), `world` (it threw
   * during reset, step or evaluate: `infra_error`), `infrastructure` (a provider or service failed),
   * `config` (the trial's configuration is wrong), `internal`. Absent when no error did (a verdict, a
   * budget, the wall clock, contamination), and in records written before it was recorded.
   */
  fault?: Fault;
  verdict?: Verdict;
  /** The first observation (after reset). */
  initial?: Observation;
  steps: StepRecord[];
  stats: TrialStats;
  /** Hash of the deterministic part of the trajectory (actions, observations, verdict). */
  trajectoryHash: string;
  /** The isolation checks (absent in records written before they were recorded, and for unrun trials). */
  isolation?: TrialIsolation;
  startedAt: string;
  finishedAt: string;
}
