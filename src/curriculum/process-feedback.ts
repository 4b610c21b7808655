import type { Action, Observation, StepRecord } from "../core/contracts.ts";
import { canonicalJson } from "../core/hash.ts";

/** What one transition says about the agent's process, world-agnostically. */
export interface TransitionSignals {
  /** The tool answered `{ok: false}`. */
  toolError: boolean;
  /** The same tool with the same arguments as the action just before. */
  repeated: boolean;
  /** A wait right after another wait, with nothing done in between. */
  wastedWait: boolean;
  /** A harness rule refused the call (`blocked`). */
  blocked: boolean;
  /** A state-changing call before any read in the episode. */
  writeWithoutRead: boolean;
  /** A step after the outcome was fixed: after the last successful write, the closing call excepted. */
  afterOutcome: boolean;
}

/** Per-episode (or per-key, summed) counts of the signals, and the steps they were counted over. */
export interface ProcessSummary {
  steps: number;
  toolErrors: number;
  repeated: number;
  wastedWaits: number;
  blocked: number;
  writesWithoutRead: number;
  afterOutcome: number;
}

/** Tool names that read (by verb): `get_`, `check_`, `find_`, `list_`, `read_`, `search_`, `lookup_`, `view_`. */
export const READ_TOOL = /^(get|check|find|list|read|search|lookup|view|inspect|show|query)_/;
/** Tool names that only wait or talk (neither read nor write state). */
export const NEUTRAL_TOOL = /^(wait|sleep|send_message|escalate|close_.*|finish|done)$/;

function resultOf(o: Observation | undefined): { ok?: boolean; error?: { code?: string } } | undefined {
  return o?.kind === "tool_result" ? (o.result as { ok?: boolean; error?: { code?: string } }) : undefined;
}

/**
 * Process feedback beyond pass/fail. `evaluateTransition(observation, action, reward, next)` is called
 * once per step, in order; it returns that step's signals and keeps the episode's context (previous
 * action, reads seen). `summary()` counts them; `processPenalty` turns a summary into one number for
 * the samplers. "Read" and "write" are told apart by the tool's verb (READ_TOOL, NEUTRAL_TOOL).
 */
export class ProcessTracker {
  #previous: string | undefined;
  #previousWasWait = false;
  #readSeen = false;
  #signals: TransitionSignals[] = [];
  #successfulWrites: number[] = [];
  #closing = -1;

  evaluateTransition(
    _observation: Observation,
    action: Action,
    _reward: number,
    next: Observation,
  ): TransitionSignals {
    const result = resultOf(next);
    const call = `${action.tool}:${canonicalJson(action.args ?? {})}`;
    const isWait = /^(wait|sleep)$/.test(action.tool);
    const isRead = READ_TOOL.test(action.tool);
    const isWrite = !isRead && !NEUTRAL_TOOL.test(action.tool);
    const ok = result?.ok !== false;
    const signals: TransitionSignals = {
      toolError: result?.ok === false,
      repeated: this.#previous === call,
      wastedWait: isWait && this.#previousWasWait,
      blocked: result?.ok === false && result.error?.code === "blocked",
      writeWithoutRead: isWrite && !this.#readSeen,
      afterOutcome: false,
    };
    const index = this.#signals.length;
    this.#signals.push(signals);
    if (isWrite && ok) this.#successfulWrites.push(index);
    if (/^(close_.*|finish|done)$/.test(action.tool)) this.#closing = index;
    if (isRead && ok) this.#readSeen = true;
    this.#previous = call;
    this.#previousWasWait = isWait;
    return signals;
  }

  summary(): ProcessSummary {
    const lastWrite = this.#successfulWrites.length
      ? this.#successfulWrites[this.#successfulWrites.length - 1]
      : -1;
    const s: ProcessSummary = {
      steps: this.#signals.length,
      toolErrors: 0,
      repeated: 0,
      wastedWaits: 0,
      blocked: 0,
      writesWithoutRead: 0,
      afterOutcome: 0,
    };
    this.#signals.forEach((x, i) => {
      x.afterOutcome = lastWrite >= 0 && i > lastWrite && i !== this.#closing;
      s.toolErrors += Number(x.toolError);
      s.repeated += Number(x.repeated);
      s.wastedWaits += Number(x.wastedWait);
      s.blocked += Number(x.blocked);
      s.writesWithoutRead += Number(x.writeWithoutRead);
      s.afterOutcome += Number(x.afterOutcome);
    });
    return s;
  }
}

/** The process summary of a recorded trajectory (setup steps, which the agent did not take, excluded). */
export function summarizeProcess(
  initial: Observation | undefined,
  steps: readonly StepRecord[],
): ProcessSummary {
  const tracker = new ProcessTracker();
  let before: Observation | undefined = initial;
  for (const step of steps) {
    if (step.setup) continue;
    tracker.evaluateTransition(before ?? step.observation, step.action, step.reward, step.observation);
    before = step.observation;
  }
  return tracker.summary();
}

/**
 * One number in [0, 1] for the samplers: the share of steps with at least the wasteful signals, i.e.
 * (tool errors + repeats + wasted waits + blocked + writes without read + steps after the outcome) /
 * (6 × steps), so 0 is a clean episode and 1 an episode where every step shows every signal.
 */
export function processPenalty(s: ProcessSummary): number {
  if (s.steps === 0) return 0;
  const bad = s.toolErrors + s.repeated + s.wastedWaits + s.blocked + s.writesWithoutRead + s.afterOutcome;
  return Math.min(1, bad / (6 * s.steps));
}

/** Sums summaries (per task key). */
export function addProcess(a: ProcessSummary, b: ProcessSummary): ProcessSummary {
  return {
    steps: a.steps + b.steps,
    toolErrors: a.toolErrors + b.toolErrors,
    repeated: a.repeated + b.repeated,
    wastedWaits: a.wastedWaits + b.wastedWaits,
    blocked: a.blocked + b.blocked,
    writesWithoutRead: a.writesWithoutRead + b.writesWithoutRead,
    afterOutcome: a.afterOutcome + b.afterOutcome,
  };
}
