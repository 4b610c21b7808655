import { z } from "zod";
import type { ToolError } from "../../core/contracts.ts";
import { quoteInput } from "../../core/quote-input.ts";
import { toolError } from "../../core/tool.ts";

/** The schema of a tool argument that names an entity by id, with its description for agents. */
export const idArg = (what: string): z.ZodString => z.string().min(1).describe(what);

/** The error a tool answers for an id that names nothing: `not_found`, `<what> <value> does not exist` (a long value cut to 80 characters). */
export const notFound = (what: string, value: string): { ok: false; error: ToolError } =>
  toolError("not_found", `${what} ${quoteInput(value)} does not exist`);
