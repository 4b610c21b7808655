import type {
  Agent,
  AgentAction,
  AgentSession,
  EpisodeInfo,
  Observation,
  StepRecord,
  ToolResult,
  TrialRecordSummary,
} from "../core/contracts.ts";
import { ProvingError } from "../core/errors.ts";
import type { JsonObject } from "../core/json.ts";
import { afterEndResult } from "../protocol/after-end-result.ts";
import type { EpisodeEndNote, ToolStep } from "../protocol/tool-step.ts";

/**
 * What a tool call gets back (the protocol's tool step): the world's result and the step's
 * bookkeeping, with `end` (outcome and verdict) when the call ended the trial or came after its end.
 */
export interface BridgeCallResult extends ToolStep {
  /** The call never reached the world (the trial had ended, or ended before it could run). */
  notRun?: boolean;
}

interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(err: unknown): void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/**
 * Turns tool calls from outside (an MCP client) into a runner Agent: the runner's `act()` waits for
 * the next call, and each call waits for the step the runner takes with it. So an MCP-driven trial
 * runs through `runTrial` like any other: same budgets, outcomes, verifier and record.
 *
 * Pass `bridge.agent` as the trial's agent and `bridge.onStep` as its `onStep`. Without `onStep`,
 * calls are answered from the observation the runner hands to the next act(), and the call that
 * ends the episode from the trial's last observation (given to the session's `end`).
 */
export class McpBridge {
  readonly agent: Agent;
  private readonly startedD = deferred<EpisodeInfo>();
  /** The runner waiting in act() for the next action. */
  private waitingAct: Deferred<AgentAction> | undefined;
  /** An action given before the runner asked for one. */
  private queued: AgentAction | undefined;
  /** The call whose step is being run. */
  private inflight: Deferred<BridgeCallResult> | undefined;
  /** The last step of the in-flight call, when it ended the episode (answered at `end`). */
  private terminalStep: StepRecord | undefined;
  /** Call id of the in-flight call's action. */
  private inflightCallId: string | undefined;
  private chain: Promise<unknown> = Promise.resolve();
  private endSummary: TrialRecordSummary | undefined;
  private gone: string | undefined;
  private calls = 0;
  /** Calls the world answered (the agent's steps). */
  private steps = 0;
  private episodeId: string | null = null;
  private now: number | null = null;

  constructor(id = "mcp") {
    this.agent = {
      id,
      start: (episode: EpisodeInfo): AgentSession => {
        this.episodeId = episode.episodeId;
        this.startedD.resolve(episode);
        return {
          act: (observation: Observation) => {
            this.answer(observation);
            return this.nextAction();
          },
          end: async (summary: TrialRecordSummary) => this.finish(summary),
        };
      },
    };
  }

  /** Resolves when the runner has reset the world and started the agent: the episode's instruction and tools. */
  get started(): Promise<EpisodeInfo> {
    return this.startedD.promise;
  }

  get ended(): TrialRecordSummary | undefined {
    return this.endSummary;
  }

  /** Runner hook: each step, as recorded. */
  readonly onStep = (step: StepRecord): void => {
    const call = this.inflight;
    if (!call) return;
    if (step.terminated || step.truncated) {
      this.terminalStep = step;
      return; // answered at end(), with the verdict
    }
    this.inflight = undefined;
    call.resolve(this.answered(step.observation, step.reward, step.t));
  };

  /** Without `onStep` wired, the observation handed to act() answers the call that produced it. */
  private answer(observation: Observation): void {
    const call = this.inflight;
    if (!call || observation.kind !== "tool_result") return;
    this.inflight = undefined;
    call.resolve(this.answered(observation, null, observation.now));
  }

  /** The answer to a call the world stepped with. */
  private answered(
    observation: Observation,
    reward: number | null,
    now: number,
    end?: EpisodeEndNote,
  ): BridgeCallResult {
    this.steps++;
    this.now = now;
    return {
      result: resultOf(observation),
      done: end !== undefined,
      reward,
      episodeId: this.episodeId,
      stepCount: this.steps,
      now,
      ...(end ? { end } : {}),
    };
  }

  /** One tool call; calls run one at a time, in the order they arrive. */
  callTool(tool: string, args: JsonObject): Promise<BridgeCallResult> {
    const run = this.chain.then(() => this.runCall(tool, args));
    this.chain = run.catch(() => undefined);
    return run;
  }

  private runCall(tool: string, args: JsonObject): Promise<BridgeCallResult> {
    if (this.endSummary) return Promise.resolve(this.afterEnd());
    if (this.gone) return Promise.resolve(this.afterEnd());
    const call = deferred<BridgeCallResult>();
    this.inflight = call;
    const action: AgentAction = { tool, args, callId: `mcp-${this.calls++}` };
    this.inflightCallId = action.callId;
    const waiting = this.waitingAct;
    if (waiting) {
      this.waitingAct = undefined;
      waiting.resolve(action);
    } else {
      this.queued = action;
    }
    return call.promise;
  }

  private nextAction(): Promise<AgentAction> {
    if (this.gone) return Promise.reject(new ProvingError("agent_disconnected", this.gone));
    const queued = this.queued;
    if (queued) {
      this.queued = undefined;
      return Promise.resolve(queued);
    }
    this.waitingAct = deferred<AgentAction>();
    return this.waitingAct.promise;
  }

  private finish(summary: TrialRecordSummary): void {
    this.endSummary = summary;
    this.queued = undefined;
    const call = this.inflight;
    this.inflight = undefined;
    if (!call) return;
    // the world's answer to this call: from onStep when wired, else the last observation of the trial
    const last = summary.last;
    const answered =
      this.terminalStep?.observation ??
      (last?.kind === "tool_result" && last.callId === this.inflightCallId ? last : undefined);
    if (answered) {
      const step = this.terminalStep;
      const now = step?.t ?? (answered.kind === "tool_result" ? answered.now : (this.now ?? 0));
      call.resolve(this.answered(answered, step?.reward ?? null, now, endOf(summary)));
    } else {
      call.resolve(this.afterEnd());
    }
  }

  private afterEnd(): BridgeCallResult {
    const s = this.endSummary;
    return {
      result: afterEndResult(s ? { outcome: s.outcome } : { reason: this.gone ?? "the trial is over" }),
      done: true,
      reward: null,
      episodeId: this.episodeId,
      stepCount: this.steps,
      now: this.now,
      ...(s ? { end: endOf(s) } : {}),
      notRun: true,
    };
  }

  /** The client went away: the trial ends as `agent_error` at its next act(). */
  disconnect(reason = "the MCP client disconnected"): void {
    if (this.gone || this.endSummary) return;
    this.gone = reason;
    const waiting = this.waitingAct;
    this.waitingAct = undefined;
    waiting?.reject(new ProvingError("agent_disconnected", reason));
  }
}

function endOf(summary: TrialRecordSummary): EpisodeEndNote {
  return { outcome: summary.outcome, ...(summary.verdict ? { verdict: summary.verdict } : {}) };
}

function resultOf(observation: Observation): ToolResult {
  if (observation.kind === "tool_result") return observation.result;
  return {
    ok: false,
    error: { code: "no_result", message: "the step produced no tool result", retryable: false },
  };
}
