import type { JsonObject } from "../core/json.ts";
import { quoteInput } from "../core/quote-input.ts";

/** A `tools/call` request's tool and arguments, once checked. */
export interface ToolCall {
  name: string;
  args: JsonObject;
}

const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Reads a `tools/call`'s params against the tools served. A call that names no tool, a tool not
 * served, or arguments that are not an object is a protocol error (`-32602`, as the MCP spec has it:
 * `problem` says why) and takes no step; anything else, bad arguments included, goes to the world,
 * which answers it with a tool error.
 */
export function readToolCall(
  params: Record<string, unknown>,
  served: readonly { name: string }[],
): ToolCall | { problem: string } {
  const name = params.name;
  if (typeof name !== "string" || name === "") return { problem: "Missing 'name' in params" };
  const args = params.arguments ?? {};
  if (!isObject(args)) return { problem: "'arguments' must be an object" };
  if (!served.some((t) => t.name === name)) return { problem: `Tool not found: ${quoteInput(name, 64)}` };
  return { name, args };
}
