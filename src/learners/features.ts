/**
 * World-agnostic features for the reference learners: what an episode's observations say, read the
 * same way in every world (no world's field names anywhere in this file).
 *
 * - Observation features (`stateFeatures`): the last tool and its answer (`ok`, or the error code
 *   and whether it is retryable), the status-like fields of the answer (booleans, and short
 *   lowercase words such as `pending`, by their path), the sizes of its lists (0, 1, 2+), after an
 *   answer that says only `ok` those of the last one that said more (`prev:`), the error codes seen
 *   so far in the episode (`seen-err:`), and the tools that have answered `ok` so far (`did:`).
 * - Action features (`actionKey`): the tool and, per argument, where its value came from: a short
 *   lowercase word as itself (an enum), a small integer as itself (a wait), otherwise the first
 *   place the episode showed it (`<tool>:<path>`, `task:<path>` for the first observation), `sent`
 *   when only the agent itself used it, `text:<first word>` for free text, `new` for anything never seen.
 */
import type { AgentAction, Observation, ToolResult } from "../core/contracts.ts";
import type { JsonValue } from "../core/json.ts";

const WORD = /^[a-z][a-z_]{0,23}$/;

/** A value's first appearance in the episode: `<tool>:<path>` (array indices left out). */
type Provenance = string;

/** What one episode has shown so far, as the learners read it. */
export class EpisodeMemory {
  private readonly firstSeen = new Map<string, Provenance>();
  private readonly succeeded = new Set<string>();
  private readonly errors = new Set<string>();
  private lastObservation: Observation | undefined;
  /** The features of the last answer that said more than `ok`. */
  private informative: string[] = [];

  /** Takes the observation the agent is about to act on. */
  observe(observation: Observation): void {
    this.lastObservation = observation;
    if (observation.kind === "task") {
      this.note(observation.context, "task", "");
      return;
    }
    if (observation.result.ok) this.succeeded.add(observation.tool);
    else this.errors.add(observation.result.error.code);
    this.note(observation.result as unknown as JsonValue, observation.tool, "");
  }

  /** Takes the action the agent sent (its values are known to it from now on). */
  sent(action: AgentAction): void {
    for (const [arg, value] of Object.entries(action.args)) this.note(value, "sent", arg, true);
  }

  /** Where a value first appeared in the episode, if it did. */
  provenance(value: string | number): Provenance | undefined {
    return this.firstSeen.get(keyOf(value));
  }

  /**
   * The observation features of the current state (sorted, no duplicates). An answer that says
   * nothing beyond `ok` (a wait, a write's bare acknowledgement) also carries the features of the
   * last answer that did, prefixed `prev:`: what the agent was waiting on.
   */
  stateFeatures(): string[] {
    const obs = this.lastObservation;
    const out = new Set<string>();
    if (!obs || obs.kind === "task") out.add("start");
    else {
      const own = new Set<string>();
      statusOf(obs.result, own);
      for (const f of own) out.add(f);
      out.add(`last:${obs.tool}`);
      const informative = [...own].some((f) => f !== "ok");
      if (informative) this.informative = [`last:${obs.tool}`, ...own];
      else for (const f of this.informative) out.add(`prev:${f}`);
    }
    for (const code of this.errors) out.add(`seen-err:${code}`);
    for (const tool of this.succeeded) out.add(`did:${tool}`);
    return [...out].sort();
  }

  private note(value: JsonValue, source: string, path: string, sentByAgent = false): void {
    if (Array.isArray(value)) {
      for (const item of value) this.note(item, source, path, sentByAgent);
    } else if (value !== null && typeof value === "object") {
      for (const [k, v] of Object.entries(value))
        this.note(v, source, path ? `${path}.${k}` : k, sentByAgent);
    } else if (typeof value === "string" || typeof value === "number") {
      const key = keyOf(value);
      if (!this.firstSeen.has(key)) this.firstSeen.set(key, sentByAgent ? "sent" : `${source}:${path}`);
    }
  }
}

const firstWord = (text: string) => (/[A-Za-z']+/.exec(text)?.[0] ?? "").toLowerCase();

const keyOf = (value: string | number) => (typeof value === "number" ? `n:${value}` : `s:${value}`);

/** The status-like features of a tool answer. */
function statusOf(result: ToolResult, out: Set<string>): void {
  if (!result.ok) {
    out.add(`err:${result.error.code}`);
    if (result.error.retryable) out.add("retryable");
    return;
  }
  out.add("ok");
  const walk = (v: JsonValue, path: string, depth: number) => {
    if (depth > 4) return;
    if (Array.isArray(v)) {
      out.add(`${path}#${v.length === 0 ? "0" : v.length === 1 ? "1" : "2+"}`);
      for (const item of v) walk(item, path, depth + 1);
    } else if (v !== null && typeof v === "object") {
      for (const [k, x] of Object.entries(v)) if (k !== "ok") walk(x, path ? `${path}.${k}` : k, depth + 1);
    } else if (typeof v === "boolean") out.add(`${path}=${v}`);
    else if (v === null) out.add(`${path}=null`);
    else if (typeof v === "string" && WORD.test(v)) out.add(`${path}=${v}`);
  };
  walk(result as unknown as JsonValue, "", 0);
}

/** One argument value's feature (see the file's comment). */
function valueFeature(value: JsonValue, memory: EpisodeMemory): string {
  if (Array.isArray(value)) return `[${value.map((v) => valueFeature(v, memory)).join(",")}]`;
  if (typeof value === "boolean" || value === null) return `=${String(value)}`;
  if (typeof value === "number") {
    if (Number.isInteger(value) && value >= 0 && value <= 3600) return `=${value}`;
    return memory.provenance(value) ?? "num";
  }
  if (typeof value === "string") {
    if (WORD.test(value)) return `=${value}`;
    const from = memory.provenance(value);
    if (from !== undefined) return from;
    // free text: its first word tells messages apart ("hello …", "to confirm …")
    return value.includes(" ") ? `text:${firstWord(value)}` : "new";
  }
  return "obj";
}

/** The action's features as one key: `tool(arg=feature,...)`, arguments sorted by name. */
export function actionKey(
  action: { tool: string; args: Record<string, JsonValue> },
  memory: EpisodeMemory,
): string {
  const parts = Object.keys(action.args)
    .sort()
    .map((arg) => `${arg}=${valueFeature(action.args[arg], memory)}`);
  return `${action.tool}(${parts.join(",")})`;
}
