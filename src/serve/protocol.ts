/**
 * The wire protocol of `proving serve`: OpenEnv-compatible shapes (HTTP `/reset`, `/step`, `/state`,
 * WebSocket `/ws` messages) and their validation. Observations are the world's own, unchanged;
 * everything else an episode knows (virtual time, verdict, layers, ids) travels in `metadata`.
 */
import { z } from "zod";
import type { Observation } from "../core/contracts.ts";
import { WIRE_ERRORS, type WireErrorCode } from "../core/error-catalogue.ts";
import type { JsonObject, JsonValue } from "../core/json.ts";
import { quoteInput } from "../core/quote-input.ts";
import { DEFAULT_JSON_LIMITS, type JsonLimits, jsonLimitViolation } from "./json-limits.ts";

/** OpenEnv's WebSocket error codes, plus the HTTP-only ones this server adds (the error catalogue's wire section). */
export const SERVE_ERROR_CODES = Object.keys(WIRE_ERRORS) as readonly ServeErrorCode[];
export type ServeErrorCode = WireErrorCode;

/** One entry of an error's `errors` list (OpenEnv's shape, as pydantic reports a validation error). */
export interface WireErrorDetail {
  /** What went wrong, machine-readable (`missing`, `too_big`, `invalid_type`, `max_depth`, ...). */
  type: string;
  /** Where: the path of the offending field (`["action", "tool"]`), empty for the whole message. */
  loc: (string | number)[];
  msg: string;
}

/** A protocol error: a code a client can branch on, a message, and an HTTP status (the catalogue's by default). */
export class ServeError extends Error {
  readonly code: ServeErrorCode;
  readonly status: number;
  readonly extra: JsonObject;
  readonly errors: WireErrorDetail[];

  constructor(
    code: ServeErrorCode,
    message: string,
    opts: { status?: number; extra?: JsonObject; errors?: WireErrorDetail[] } = {},
  ) {
    super(message);
    this.name = "ServeError";
    this.code = code;
    this.status = opts.status ?? WIRE_ERRORS[code].status;
    this.extra = opts.extra ?? {};
    this.errors = opts.errors ?? [{ type: code.toLowerCase(), loc: [], msg: message }];
  }

  /**
   * The error's data: `{message, code, errors, ...extra}` (the `data` of a WS error, the body of an
   * HTTP one). `errors` is always a non-empty list of `{type, loc, msg}`, as OpenEnv's validation errors.
   */
  toData(): JsonObject {
    return {
      message: this.message,
      code: this.code,
      errors: this.errors as unknown as JsonValue,
      ...this.extra,
    };
  }
}

/** What `/reset` and `/step` answer, and the `data` of a WS `observation` message. */
export interface StepEnvelope {
  /** The world's observation (`{kind: "task" | "tool_result", ...}`), unchanged. */
  observation: Observation;
  reward: number | null;
  done: boolean;
  /**
   * Always present. `episode_id`, `step_count`, `now` (virtual seconds), `terminated`, `truncated`;
   * on the step that ends the episode, `verdict`; `request_id` when the request carried one. Only to the
   * operator (`disclosure.ts`): whatever else the environment put in its step info (harness `layers`,
   * `setup`...) and the task keys of a reset the server chose.
   */
  metadata: JsonObject;
}

/** `/state` and the `data` of a WS `state` message. No hidden task parameters, no verdict before the end. */
export interface EpisodeStateDoc {
  episode_id: string | null;
  step_count: number;
  /** Base world id. */
  world: string;
  /** What is served: the world id, or the variant id of a harnessed world. */
  environment: string;
  task_id: string | null;
  family: string | null;
  difficulty: number | null;
  seed: number | null;
  now: number;
  done: boolean;
  terminated: boolean;
  truncated: boolean;
  total_reward: number;
  /** Present once the episode has ended. */
  verdict?: JsonValue;
  [key: string]: JsonValue | undefined;
}

export type WsClientMessage =
  | { type: "reset"; data?: JsonObject }
  | { type: "mcp"; data: JsonObject }
  | { type: "step"; data: JsonObject }
  | { type: "step_batch"; data: JsonObject }
  | { type: "fork"; data: JsonObject }
  | { type: "group"; data: JsonObject }
  | { type: "state" }
  | { type: "close" };

export type WsServerMessage =
  | { type: "observation"; data: StepEnvelope }
  | { type: "state"; data: EpisodeStateDoc }
  | { type: "mcp"; data: JsonObject }
  | { type: "reset_group"; data: JsonObject }
  | { type: "step_batch"; data: JsonObject }
  | { type: "fork"; data: JsonObject }
  | { type: "group"; data: JsonObject }
  | { type: "error"; data: { message: string; code: string; [key: string]: JsonValue } };

/** A tool call as it travels: `{tool, args}` (`callId` optional; `metadata` accepted and ignored, as OpenEnv's Action has one). */
export interface WireAction {
  tool: string;
  args: JsonObject;
  callId?: string;
  /**
   * Set when the action came in OpenEnv's MCP action shape: `{type: "list_tools"}` (answers the tool
   * list, steps nothing) or `{type: "call_tool", tool_name, arguments}` (a tool call whose observation
   * also carries `tool_name`, as OpenEnv's `CallToolObservation`).
   */
  mcp?: "list_tools" | "call_tool";
}

export interface ResetParams {
  seed?: number;
  episode_id?: string;
  family?: string;
  difficulty?: number;
  /**
   * With a curriculum (`proving serve --curriculum`): `heldout` asks for a held-out task, never served
   * otherwise; `dynamic` is what a bare reset gets. Only with no seed, family or difficulty.
   */
  split?: "dynamic" | "heldout";
  /** Answer the admissible actions in the reply's `metadata.admissible_actions`. */
  admissible?: boolean;
}

export interface StepParams {
  action: WireAction;
  episode_id?: string;
  timeout_s?: number;
  request_id?: string;
  /** Answer the admissible actions in the reply's `metadata.admissible_actions`. */
  admissible?: boolean;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

const jsonObject = z.record(z.string(), z.unknown());

/**
 * Tool arguments: any JSON object, passed through as parsed. Not `z.record`, which copies the object
 * key by key and so drops an own `__proto__` key (the world must see it, and refuse it, as a local
 * run does).
 */
const toolArgs = z.custom<Record<string, unknown>>(isPlainObject, { message: "expected an object" });

/**
 * Tool names are not length-capped here: any non-empty name reaches the world, which answers an
 * unknown one with an `invalid_argument` observation, as in a local run (the JSON limits bound it).
 */
const actionSchema = z
  .object({
    tool: z.string().min(1),
    args: toolArgs.optional(),
    callId: z.string().min(1).max(255).optional(),
    call_id: z.string().min(1).max(255).optional(),
    metadata: jsonObject.optional(),
  })
  .strict();

const ACTION_KEYS = new Set(["tool", "args", "callId", "call_id"]);
const isCallId = (v: unknown) => typeof v === "string" && v.length >= 1 && v.length <= 255;

/**
 * The common action (`tool`, optional `args`, `callId` / `call_id`; no `metadata`) checked by hand:
 * exactly what `actionSchema` accepts of that shape, at a fraction of the cost per step. Anything
 * else (an unknown key, a wrong type, `metadata`) returns undefined and goes to the schema, which
 * accepts or refuses it with its usual messages.
 */
function plainAction(value: Record<string, unknown>): WireAction | undefined {
  for (const key in value) if (!Object.hasOwn(value, key) || !ACTION_KEYS.has(key)) return undefined;
  const { tool, args, callId: camel, call_id: snake } = value;
  if (typeof tool !== "string" || tool.length === 0) return undefined;
  if (args !== undefined && !isPlainObject(args)) return undefined;
  if ((camel !== undefined && !isCallId(camel)) || (snake !== undefined && !isCallId(snake)))
    return undefined;
  const callId = (camel ?? snake) as string | undefined;
  return { tool, args: (args ?? {}) as JsonObject, ...(callId ? { callId } : {}) };
}

const callToolSchema = z
  .object({
    type: z.literal("call_tool"),
    tool_name: z.string().min(1),
    arguments: toolArgs.optional(),
    metadata: jsonObject.optional(),
  })
  .strict();

const listToolsSchema = z.object({ type: z.literal("list_tools"), metadata: jsonObject.optional() }).strict();

const episodeId = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[\x21-\x7e]+$/, "printable ASCII without spaces");

const resetSchema = z
  .object({
    // OpenEnv's convention: -1 (or null) asks for no particular seed; the server picks one
    seed: z.number().int().min(-1).max(Number.MAX_SAFE_INTEGER).nullable().optional(),
    episode_id: episodeId.optional(),
    family: z.string().min(1).max(200).optional(),
    difficulty: z.number().int().min(0).max(1000).optional(),
    split: z.enum(["dynamic", "heldout"]).optional(),
    admissible: z.boolean().optional(),
  })
  .loose();

const stepSchema = z
  .object({
    action: z.unknown(),
    episode_id: episodeId.optional(),
    timeout_s: z.number().positive().max(86_400).optional(),
    request_id: z.string().max(255).optional(),
    admissible: z.boolean().optional(),
  })
  .loose();

/** Fields a client may never set: the task is built on the server, and the verdict is the verifier's. */
const FORBIDDEN_RESET_FIELDS = ["params", "task", "verdict", "state"] as const;

function validationError(where: string, error: z.ZodError): ServeError {
  const base = where.split(".");
  const errors: WireErrorDetail[] = error.issues.slice(0, 20).map((issue) => {
    const path = issue.path.map((p) => (typeof p === "number" ? p : quoteInput(String(p), 64)));
    const keys = issue.code === "unrecognized_keys" ? issue.keys.map((k) => quoteInput(k, 64)) : [];
    return {
      type: issue.code,
      loc: [...base, ...path, ...(keys.length ? [keys.join(", ")] : [])],
      msg: quoteInput(issue.message, 200),
    };
  });
  const first = errors[0];
  return new ServeError("VALIDATION_ERROR", `${first.loc.join(".")}: ${first.msg}`, { errors });
}

/** Parses JSON text; malformed text is `INVALID_JSON`, text past the limits `VALIDATION_ERROR`. Empty text is `undefined`. */
export function parseJsonText(text: string, limits: JsonLimits = DEFAULT_JSON_LIMITS): unknown {
  if (text.trim() === "") return undefined;
  const violation = jsonLimitViolation(text, limits);
  if (violation) {
    throw new ServeError("VALIDATION_ERROR", violation.message, {
      extra: { limit: violation.limit, max: violation.max },
      errors: [{ type: violation.limit, loc: [], msg: violation.message }],
    });
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    const reason = quoteInput(err instanceof Error ? err.message : String(err), 200);
    throw new ServeError("INVALID_JSON", `invalid JSON: ${reason}`);
  }
}

/**
 * A wire action from freshly parsed JSON. Its `args` object is taken as is (not copied): the caller
 * owns the parsed value and passes it on to the world once.
 */
export function parseAction(value: unknown, where = "action"): WireAction {
  if (!isPlainObject(value))
    throw new ServeError("VALIDATION_ERROR", `${where}: expected an object {tool, args}`);
  if (value.type === "list_tools") {
    const listed = listToolsSchema.safeParse(value);
    if (!listed.success) throw validationError(where, listed.error);
    return { tool: "list_tools", args: {}, mcp: "list_tools" };
  }
  if (value.type === "call_tool") {
    const call = callToolSchema.safeParse(value);
    if (!call.success) throw validationError(where, call.error);
    return {
      tool: call.data.tool_name,
      args: (call.data.arguments ?? {}) as JsonObject,
      mcp: "call_tool",
    };
  }
  const plain = plainAction(value);
  if (plain) return plain;
  const parsed = actionSchema.safeParse(value);
  if (!parsed.success) throw validationError(where, parsed.error);
  const a = parsed.data;
  const callId = a.callId ?? a.call_id;
  return {
    tool: a.tool,
    args: (a.args ?? {}) as JsonObject,
    ...(callId ? { callId } : {}),
  };
}

export function parseResetParams(value: unknown): ResetParams {
  if (value === undefined || value === null) return {};
  if (!isPlainObject(value)) throw new ServeError("VALIDATION_ERROR", "reset: expected an object");
  for (const field of FORBIDDEN_RESET_FIELDS) {
    if (field in value) {
      throw new ServeError(
        "VALIDATION_ERROR",
        `reset.${field}: not accepted; tasks are generated on the server from family, difficulty and seed`,
      );
    }
  }
  const parsed = resetSchema.safeParse(value);
  if (!parsed.success) throw validationError("reset", parsed.error);
  const r = parsed.data;
  return {
    ...(typeof r.seed === "number" && r.seed >= 0 ? { seed: r.seed } : {}),
    ...(r.episode_id !== undefined ? { episode_id: r.episode_id } : {}),
    ...(r.family !== undefined ? { family: r.family } : {}),
    ...(r.difficulty !== undefined ? { difficulty: r.difficulty } : {}),
    ...(r.split !== undefined ? { split: r.split } : {}),
    ...(r.admissible === true ? { admissible: true } : {}),
  };
}

export function parseStepParams(value: unknown): StepParams {
  if (!isPlainObject(value)) throw new ServeError("VALIDATION_ERROR", "step: expected an object {action}");
  const parsed = stepSchema.safeParse(value);
  if (!parsed.success) throw validationError("step", parsed.error);
  if (!("action" in value)) throw new ServeError("VALIDATION_ERROR", "step.action: required");
  const s = parsed.data;
  return {
    action: parseAction(s.action, "step.action"),
    ...(s.episode_id !== undefined ? { episode_id: s.episode_id } : {}),
    ...(s.timeout_s !== undefined ? { timeout_s: s.timeout_s } : {}),
    ...(s.request_id !== undefined ? { request_id: s.request_id } : {}),
    ...(s.admissible === true ? { admissible: true } : {}),
  };
}

export function parseEpisodeId(value: unknown, where: string): string {
  const parsed = episodeId.safeParse(value);
  if (!parsed.success) {
    if (value === undefined || value === null || value === "") {
      throw new ServeError("VALIDATION_ERROR", `${where}: required (the episode_id returned by /reset)`);
    }
    throw validationError(where, parsed.error);
  }
  return parsed.data;
}

/** Parses a WS text frame into a client message, or throws a coded error. */
export function parseWsMessage(text: string, limits: JsonLimits = DEFAULT_JSON_LIMITS): WsClientMessage {
  const value = parseJsonText(text, limits);
  if (!isPlainObject(value))
    throw new ServeError("VALIDATION_ERROR", "message: expected an object {type, data}");
  const type = value.type;
  if (typeof type !== "string") throw new ServeError("VALIDATION_ERROR", "message.type: required string");
  switch (type) {
    case "reset":
      if (value.data !== undefined && !isPlainObject(value.data))
        throw new ServeError("VALIDATION_ERROR", "reset.data: expected an object");
      return { type, ...(value.data !== undefined ? { data: value.data as JsonObject } : {}) };
    case "step":
      if (!isPlainObject(value.data))
        throw new ServeError("VALIDATION_ERROR", "step.data: expected the action {tool, args}");
      return { type, data: value.data as JsonObject };
    case "mcp":
      if (!isPlainObject(value.data))
        throw new ServeError("VALIDATION_ERROR", "mcp.data: expected a JSON-RPC request object");
      return { type, data: value.data as JsonObject };
    case "step_batch":
    case "fork":
    case "group":
      if (!isPlainObject(value.data))
        throw new ServeError("VALIDATION_ERROR", `${type}.data: expected an object`);
      return { type, data: value.data as JsonObject };
    case "state":
    case "close":
      return { type };
    default:
      throw new ServeError("UNKNOWN_TYPE", `unknown message type: ${quoteInput(type, 64)}`);
  }
}
