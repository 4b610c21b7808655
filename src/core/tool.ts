import { z } from "zod";
import type { ToolDescriptor, ToolError, ToolResult } from "./contracts.ts";
import { fastCheckOf } from "./fast-args.ts";
import type { JsonObject } from "./json.ts";
import type { ToolErrorCode } from "./tool-error-catalogue.ts";

/**
 * A typed tool: a zod schema for its one argument object, turned into JSON Schema for agents,
 * and a handler that gets the validated arguments and the world's context.
 */
export interface ToolDef<Ctx, S extends z.ZodType = z.ZodType> {
  name: string;
  description: string;
  input: S;
  run(args: z.infer<S>, ctx: Ctx): ToolResult;
}

/**
 * A typed tool: its zod `input` types the args `run` gets, and is the JSON Schema agents are shown.
 *
 * @example
 * ```ts
 * const add = defineTool({
 *   name: "add",
 *   description: "add n to the counter",
 *   input: z.strictObject({ n: z.number().int() }), // strict: an unknown key is an invalid_argument
 *   run: ({ n }, ctx: SimpleWorldContext<Counter>) => ({ ok: true, count: (ctx.state.entities.count += n) }),
 * });
 * ```
 */
export function defineTool<Ctx, S extends z.ZodType>(def: ToolDef<Ctx, S>): ToolDef<Ctx, S> {
  return def;
}

export function toolDescriptor(def: { name: string; description: string; input: z.ZodType }): ToolDescriptor {
  const schema = z.toJSONSchema(def.input) as JsonObject;
  delete schema.$schema;
  return { name: def.name, description: def.description, input_schema: schema };
}

/** An error observation; its code is one of the catalogue's tool error codes. */
export function toolError(
  code: ToolErrorCode,
  message: string,
  retryable = false,
): { ok: false; error: ToolError } {
  return { ok: false, error: { code, message, retryable } };
}

/** Validates a tool's arguments; on failure, an `invalid_argument` error naming the field. */
export function parseToolArgs<S extends z.ZodType>(
  tool: { name: string; input: S },
  args: unknown,
): { ok: true; value: z.infer<S> } | { ok: false; error: ToolError } {
  // Valid calls (nearly all of them) skip zod; anything the fast check is not sure about goes to zod.
  const fast = fastCheckOf(tool.input)?.(args);
  if (fast !== undefined) return { ok: true, value: fast.value as z.infer<S> };
  const parsed = tool.input.safeParse(args);
  if (parsed.success) return { ok: true, value: parsed.data };
  const issue = parsed.error.issues[0];
  let field = issue.path.map(String).join(".");
  if (issue.code === "unrecognized_keys") field = issue.keys.join(", ");
  const where = field === "" ? "arguments" : `argument \`${field}\``;
  return toolError("invalid_argument", `${tool.name}: ${where}: ${issue.message}`);
}
