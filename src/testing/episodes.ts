/**
 * Episode drivers of the conformance checks: replaying a fixed action list against a fresh instance,
 * seeded random walks whose arguments come from each tool's JSON Schema (strings drawn from ids the
 * episode has shown, so calls reach real entities), and the digests two runs are compared by.
 */
import type { Action, Environment, Observation, StepResult, TrialRecord } from "../core/contracts.ts";
import { ProvingError } from "../core/errors.ts";
import { hashJson } from "../core/hash.ts";
import type { JsonValue } from "../core/json.ts";
import { Rng } from "../core/rng.ts";
import { sampleValue } from "./json-schema.ts";
import { malformedArgs } from "./malformed.ts";
import type { Cell, Subject } from "./subject.ts";

/** What a step must reproduce: the observation, reward, end flags and info (verdict included). */
export function stepDigest(r: StepResult): string {
  return hashJson({
    observation: r.observation,
    reward: r.reward,
    terminated: r.terminated,
    truncated: r.truncated,
    info: r.info,
  });
}

/**
 * The verdict, as data to compare: `evaluate()` answers one, or refuses with a coded ProvingError
 * (a remote world gives its verdict only on the step that ends the episode). Anything else it throws
 * is a crash, and propagates.
 */
export function verdictOf(env: Environment): JsonValue {
  try {
    return env.evaluate() as unknown as JsonValue;
  } catch (err) {
    if (err instanceof ProvingError) return { refused: err.code };
    throw err;
  }
}

/** The agent's actions of a runner record (steps a Setup layer replayed are the environment's). */
export const agentActions = (record: TrialRecord): Action[] =>
  record.steps.filter((s) => !s.setup).map((s) => s.action);

/** Steps `actions` in order (stopping when the episode ends) on an environment already reset. */
export async function stepAll(env: Environment, actions: readonly Action[]): Promise<StepResult[]> {
  const results: StepResult[] = [];
  for (const action of actions) {
    const r = await env.step(structuredClone(action));
    results.push(r);
    if (r.terminated || r.truncated) break;
  }
  return results;
}

export interface Replay {
  initial: Observation;
  results: StepResult[];
  verdict: JsonValue;
  /** The state hash at the end, when the environment declares inspection. */
  endHash?: string;
  /** Hash of the initial observation, every step result and the verdict. */
  hash: string;
}

/** Resets a fresh instance with the cell's task and replays `actions` against it. */
export async function replay(
  subject: Subject,
  cell: Cell,
  actions: readonly Action[],
  episodeId = "conformance-episode",
): Promise<Replay> {
  const env = subject.create(cell);
  try {
    const initial = await env.reset({ task: subject.task(cell), seed: cell.seed, episodeId });
    const results = await stepAll(env, actions);
    const verdict = verdictOf(env);
    const inspection = env.capabilities.inspection;
    const hash = hashJson({ initial, steps: results.map(stepDigest), verdict });
    return { initial, results, verdict, hash, ...(inspection ? { endHash: inspection.stateHash() } : {}) };
  } finally {
    await subject.release(env);
  }
}

const TRANSPORT_LIMITS = new Set(["max_string_length", "max_depth"]);

/**
 * Whether a step's error is the transport refusing the request as past its limits before any world
 * saw it (a server's `PAYLOAD_TOO_LARGE`, or its `VALIDATION_ERROR` naming a JSON limit): not the
 * world throwing. A target that declares its limits is sent nothing past them (`fits`).
 */
export function refusedByTransport(err: unknown): boolean {
  if (!(err instanceof ProvingError)) return false;
  if (err.code === "remote_payload_too_large") return true;
  const details = err.details;
  const limit =
    typeof details === "object" && details !== null ? (details as { limit?: unknown }).limit : undefined;
  return err.code === "remote_validation_error" && typeof limit === "string" && TRANSPORT_LIMITS.has(limit);
}

/** Every string leaf of a JSON value (ids, models, addresses...), short ones only. */
function collectStrings(value: unknown, into: Set<string>): void {
  if (typeof value === "string") {
    if (value.length > 0 && value.length <= 64) into.add(value);
  } else if (Array.isArray(value)) {
    for (const v of value) collectStrings(v, into);
  } else if (value !== null && typeof value === "object") {
    for (const v of Object.values(value)) collectStrings(v, into);
  }
}

/** The string values of a task observation's context (what malformed cases draw ids from). */
export function contextStrings(obs: Observation): string[] {
  const pool = new Set<string>();
  if (obs.kind === "task") collectStrings(obs.context, pool);
  return [...pool];
}

const UTF8 = new TextEncoder();

const isPlainObject = (v: unknown) => typeof v === "object" && v !== null && !Array.isArray(v);

/** Whether no string of `value` (values and keys, as JSON text) is longer than `max`, nesting at most `depth` deep. */
function within(value: unknown, max: number, depth: number): boolean {
  const short = (s: string) =>
    s.length <= max && (s.length * 6 <= max || JSON.stringify(s).length - 2 <= max);
  if (typeof value === "string") return short(value);
  if (typeof value !== "object" || value === null) return true;
  if (depth <= 0) return false;
  for (const [k, v] of Object.entries(value)) if (!short(k) || !within(v, max, depth - 1)) return false;
  return true;
}

/** Whether an action fits the transport (`maxActionBytes` as JSON, `maxStringLength`, `maxDepth` of its arguments). */
export function fits(subject: Subject, action: Action): boolean {
  const { maxActionBytes, maxStringLength, maxDepth } = subject;
  if (Number.isFinite(maxStringLength) || Number.isFinite(maxDepth)) {
    if (!within({ tool: action.tool, callId: action.callId }, maxStringLength, 1)) return false;
    if (!within(action.args, maxStringLength, maxDepth)) return false;
  }
  if (!Number.isFinite(maxActionBytes)) return true;
  return UTF8.encode(JSON.stringify(action) ?? "").length <= maxActionBytes;
}

/**
 * A seeded random walk of up to `steps` actions on a fresh episode: mostly schema-valid calls of
 * random tools (terminal tools rarely), some with malformed argument objects, each within the
 * target's declared limits (`fits`). Returns the actions taken; a call the transport refused as past
 * its limits (an undeclared one) ends the walk before it: it never reached the world.
 */
export async function randomWalk(subject: Subject, cell: Cell, rng: Rng, steps: number): Promise<Action[]> {
  const env = subject.create(cell);
  try {
    const first = await env.reset({ task: subject.task(cell), seed: cell.seed, episodeId: "walk" });
    const pool = new Set<string>(contextStrings(first));
    const tools = env.spec.tools;
    const terminal = new Set(env.spec.terminalTools);
    const actions: Action[] = [];
    for (let i = 0; i < steps; i++) {
      let tool = rng.pick(tools);
      if (terminal.has(tool.name) && i < steps - 1 && rng.bool(0.9)) tool = rng.pick(tools);
      const strings = [...pool];
      let action: Action;
      do {
        const args = rng.bool(0.1)
          ? malformedArgs(tool.input_schema, rng, strings).args
          : sampleValue(tool.input_schema, rng, strings);
        action = { tool: tool.name, args, callId: `w${i}` } as Action;
        // within the Action contract (args an object): what an agent can make the runner send
      } while (!isPlainObject(action.args) || !fits(subject, action));
      let r: StepResult;
      try {
        r = await env.step(structuredClone(action));
      } catch (err) {
        if (refusedByTransport(err)) break;
        throw err;
      }
      actions.push(action);
      collectStrings(r.observation.kind === "tool_result" ? r.observation.result : null, pool);
      if (r.terminated || r.truncated) break;
    }
    return actions;
  } finally {
    await subject.release(env);
  }
}

/** A seeded Rng for a named purpose and cell (independent streams, stable across runs). */
export function rngFor(purpose: string, cell: Cell): Rng {
  return Rng.seeded(cell.seed * 7919 + cell.difficulty, `${purpose}/${cell.family}`);
}

/** Jobs compared by what they do, not by their ids (needs inspection). */
export function jobsView(env: Environment): JsonValue {
  const inspection = env.capabilities.inspection;
  if (!inspection) return null;
  return inspection.pendingJobs().map((j) => ({ due: j.due, kind: j.kind, data: j.data, owner: j.owner }));
}
