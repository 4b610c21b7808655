import type { ToolResult } from "../../core/contracts.ts";
import type { JsonObject, JsonValue } from "../../core/json.ts";

/** One call of the episode as the agent knows it: what it sent and the answer it received. */
export interface SeenCall {
  tool: string;
  args: JsonObject;
  result: ToolResult;
}

/** A scalar an agent can put into an argument. */
export type SeenScalar = string | number;

/**
 * Pulls values out of a text an observation showed (a customer's message, say), filed under an
 * argument's name: e.g. `line` ← the address a customer wrote. Returns the values found, in order.
 */
export type TextExtractor = (text: string) => readonly SeenScalar[];

/**
 * Everything an agent has seen in an episode, as values by field name: the first observation's
 * context, every answer it received (as delivered to it) and every argument it sent itself. Nothing
 * else: built from observations only, it can hold no hidden parameter of the task.
 *
 * Values are ordered most recent observation first; within one observation, in document order.
 */
export class SeenValues {
  private readonly shown = new Map<string, SeenScalar[]>();
  private readonly sentBy = new Map<string, SeenScalar[]>();

  constructor(
    readonly context: JsonObject,
    readonly calls: readonly SeenCall[],
    extractors: Readonly<Record<string, TextExtractor>> = {},
  ) {
    const extract = Object.entries(extractors);
    // most recent first: the answers from the last call back to the first, then the context
    for (let i = calls.length - 1; i >= 0; i--) {
      const call = calls[i];
      this.walk(call.result as unknown as JsonValue, undefined, this.shown, extract);
      this.walk(call.args, undefined, this.sentBy, []);
    }
    this.walk(context, undefined, this.shown, extract);
  }

  /** Values observations showed under `key` (in any object, at any depth), most recent first. */
  values(key: string): readonly SeenScalar[] {
    return this.shown.get(key) ?? [];
  }

  /** Values the agent itself sent under the argument `key`, most recent first. */
  sent(key: string): readonly SeenScalar[] {
    return this.sentBy.get(key) ?? [];
  }

  /** The answer to the last call (none before the first call). */
  get last(): ToolResult | undefined {
    return this.calls[this.calls.length - 1]?.result;
  }

  private walk(
    value: JsonValue,
    key: string | undefined,
    into: Map<string, SeenScalar[]>,
    extract: readonly [string, TextExtractor][],
  ): void {
    if (Array.isArray(value)) {
      for (const item of value) this.walk(item, key, into, extract);
    } else if (value !== null && typeof value === "object") {
      for (const [k, v] of Object.entries(value)) this.walk(v, k, into, extract);
    } else if (key !== undefined && (typeof value === "string" || typeof value === "number")) {
      add(into, key, value);
      if (typeof value === "string" && key === "text") {
        for (const [name, fn] of extract) for (const found of fn(value)) add(into, name, found);
      }
    }
  }
}

function add(into: Map<string, SeenScalar[]>, key: string, value: SeenScalar): void {
  const list = into.get(key);
  if (!list) into.set(key, [value]);
  else if (!list.includes(value)) list.push(value);
}
