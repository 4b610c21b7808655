/**
 * OpenEnv's MCP mode: JSON-RPC 2.0 `tools/list` and `tools/call` on the served episode's tools, at
 * `POST /mcp` and as the WebSocket `mcp` message. A `tools/call` is one step of an episode: over a
 * WebSocket the connection's own; over HTTP the one `params.session_id` names, else the one the
 * `Mcp-Session-Id` header names (an `episode_id` from `/reset`, or from the `openenv/session/create`
 * method, which resets a new episode). The tools and results are `src/protocol`'s, the same as
 * `proving mcp`'s: a tool error is an error result (`isError: true`); a call that names no served
 * tool is a JSON-RPC error (`-32602`); a call after the episode ended answers `trial_ended`.
 */
import { randomUUID } from "node:crypto";
import type { EnvSpec, ToolResult } from "../core/contracts.ts";
import { errorMessage } from "../core/errors.ts";
import type { JsonObject, JsonValue } from "../core/json.ts";
import { quoteInput } from "../core/quote-input.ts";
import { afterEndResult } from "../protocol/after-end-result.ts";
import { JSON_RPC, type JsonRpcId, type JsonRpcResponse } from "../protocol/json-rpc.ts";
import { mcpCallResult } from "../protocol/mcp-call-result.ts";
import { mcpTools } from "../protocol/mcp-tool.ts";
import { readToolCall } from "../protocol/tool-call.ts";
import type { ToolStep } from "../protocol/tool-step.ts";
import type { Viewer } from "./disclosure.ts";
import type { Episode } from "./episode.ts";
import { hasResetTool, RESET_TOOL, resetResult, resetToolDescriptor, taskText } from "./mcp-session.ts";
import { parseResetParams, ServeError, type StepEnvelope } from "./protocol.ts";
import type { SessionManager } from "./sessions.ts";

export { JSON_RPC, type JsonRpcId, type JsonRpcResponse };

export interface McpRpcContext {
  spec: EnvSpec;
  sessions: SessionManager;
  /** The WebSocket connection's session; absent over HTTP. */
  session?: Episode;
  /** Who asks (the operator token's holder or a client; `disclosure.ts`). */
  viewer: Viewer;
  /** Over HTTP: the `Mcp-Session-Id` header, the session of a call without `params.session_id`. */
  headerSession?: string;
  /** Over HTTP: told the id of the session an `initialize` opened (the reply's `Mcp-Session-Id`). */
  onSession?: (sessionId: string) => void;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

const failure = (id: JsonRpcId, code: number, message: string, data?: JsonValue): JsonRpcResponse => ({
  jsonrpc: "2.0",
  id,
  error: { code, message, ...(data !== undefined ? { data } : {}) },
});

const success = (id: JsonRpcId, result: JsonValue): JsonRpcResponse => ({ jsonrpc: "2.0", id, result });

/** A JSON-RPC notification (`notifications/...`, no id): nothing to answer. */
export function isNotification(message: unknown): boolean {
  return (
    isObject(message) &&
    !("id" in message) &&
    typeof message.method === "string" &&
    message.method.startsWith("notifications/")
  );
}

/** Answers one JSON-RPC request (any value: a malformed one gets `-32600`). Never throws. */
export async function handleMcpRpc(request: unknown, ctx: McpRpcContext): Promise<JsonRpcResponse> {
  if (!isObject(request) || request.jsonrpc !== "2.0" || typeof request.method !== "string") {
    const id = isObject(request) ? rpcId(request.id) : null;
    return failure(
      id,
      JSON_RPC.invalidRequest,
      'Invalid Request: expected {"jsonrpc": "2.0", "method", "params"?, "id"?}',
    );
  }
  const id = rpcId(request.id);
  const params = request.params ?? {};
  if (!isObject(params)) return failure(id, JSON_RPC.invalidParams, "params must be an object");
  try {
    switch (request.method) {
      case "initialize": {
        const instructions = await initializeSession(ctx);
        return success(id, {
          protocolVersion: typeof params.protocolVersion === "string" ? params.protocolVersion : "2025-06-18",
          capabilities: { tools: {} },
          serverInfo: { name: ctx.spec.id, version: ctx.spec.id.split("@")[1] ?? "0" },
          ...(instructions !== undefined ? { instructions } : {}),
        });
      }
      case "ping":
        return success(id, {});
      case "tools/list": {
        const tools = [...mcpTools(ctx.spec.tools), ...(hasResetTool(ctx.spec) ? [resetToolDescriptor] : [])];
        return success(id, { tools: tools as unknown as JsonValue });
      }
      case "tools/call":
        if (params.name === RESET_TOOL && hasResetTool(ctx.spec)) return await resetCall(id, params, ctx);
        return await toolsCall(id, params, ctx);
      case "openenv/session/create":
        return await sessionCreate(id, params, ctx);
      case "openenv/session/close":
        return sessionClose(id, params, ctx);
      default:
        return failure(id, JSON_RPC.methodNotFound, `Method not found: ${quoteInput(request.method, 64)}`);
    }
  } catch (err) {
    if (err instanceof ServeError) {
      return failure(id, JSON_RPC.serverError, `${err.message} [${err.code}]`, err.toData());
    }
    return failure(id, JSON_RPC.internalError, `internal error: ${errorMessage(err)}`);
  }
}

const isEpisode = (v: Episode | { code: number }): v is Episode => !("code" in v);

function rpcId(value: unknown): JsonRpcId {
  return typeof value === "string" || typeof value === "number" ? value : null;
}

function sessionOf(
  params: Record<string, unknown>,
  ctx: McpRpcContext,
): Episode | { code: number; message: string } {
  if (ctx.session) return ctx.session;
  const sid = params.session_id ?? ctx.headerSession;
  if (typeof sid !== "string" || sid === "") {
    return {
      code: JSON_RPC.invalidParams,
      message:
        "tools/call over HTTP needs params.session_id (or an Mcp-Session-Id header): an episode_id from POST /reset or from openenv/session/create",
    };
  }
  const session = ctx.sessions.getHttp(sid);
  if (!session)
    return { code: JSON_RPC.invalidParams, message: `Unknown session_id: ${quoteInput(sid, 64)}` };
  return session;
}

async function toolsCall(id: JsonRpcId, params: Record<string, unknown>, ctx: McpRpcContext) {
  const call = readToolCall(params, ctx.spec.tools);
  if ("problem" in call) return failure(id, JSON_RPC.invalidParams, call.problem);
  const session = sessionOf(params, ctx);
  if (!isEpisode(session)) return failure(id, session.code, session.message);
  const run = async (): Promise<ToolStep> => {
    const end = session.end;
    if (session.done && end) {
      // as `proving mcp` answers a call after its trial ended: not run, no step
      const { steps, now } = session.progress;
      return {
        result: afterEndResult(end),
        done: true,
        reward: null,
        episodeId: session.id,
        stepCount: steps,
        now,
        end,
      };
    }
    const action = { tool: call.name, args: structuredClone(call.args) };
    return toolStep(await session.step(action, { viewer: ctx.viewer }), session);
  };
  // over WS the caller already holds the session's turn
  const step = ctx.session ? await run() : await session.exclusive(ctx.sessions.clock, run);
  return success(id, mcpCallResult(step) as unknown as JsonValue);
}

/** A step's envelope (as `/step` answers it) as the protocol's tool step. */
function toolStep(envelope: StepEnvelope, session: Episode): ToolStep {
  const obs = envelope.observation as unknown as JsonObject;
  const meta = envelope.metadata;
  const end = session.end;
  return {
    result: (obs.result ?? obs) as unknown as ToolResult,
    done: envelope.done,
    reward: envelope.reward,
    episodeId: typeof meta.episode_id === "string" ? meta.episode_id : null,
    stepCount: typeof meta.step_count === "number" ? meta.step_count : null,
    now: typeof meta.now === "number" ? meta.now : null,
    ...(end ? { end } : {}),
  };
}

/**
 * An HTTP `initialize` without a live `Mcp-Session-Id` opens a session (an HTTP episode under a new
 * id, told through `onSession`) on a task the server chooses, and answers its instruction.
 */
async function initializeSession(ctx: McpRpcContext): Promise<string | undefined> {
  if (ctx.session || !ctx.onSession) return undefined;
  if (ctx.headerSession && ctx.sessions.getHttp(ctx.headerSession)) return undefined;
  const episodeId = `mcp-${randomUUID()}`;
  const session = ctx.sessions.createHttp(episodeId, true);
  try {
    const envelope = await session.exclusive(ctx.sessions.clock, () =>
      session.reset({}, episodeId, ctx.viewer, "mcp"),
    );
    ctx.onSession(episodeId);
    return taskText(envelope.observation);
  } catch (err) {
    ctx.sessions.close(session, "reset failed");
    throw err;
  }
}

/** The reset tool: a new episode in the caller's session (its HTTP id stays the session's). */
async function resetCall(id: JsonRpcId, params: Record<string, unknown>, ctx: McpRpcContext) {
  const args = params.arguments ?? {};
  if (!isObject(args)) return failure(id, JSON_RPC.invalidParams, "reset: arguments must be an object");
  const { seed, family, difficulty, ...rest } = args;
  if (Object.keys(rest).length > 0) {
    return failure(
      id,
      JSON_RPC.invalidParams,
      `reset: unknown argument ${quoteInput(Object.keys(rest)[0], 64)}`,
    );
  }
  const reset = parseResetParams({ seed, family, difficulty });
  const session = sessionOf(params, ctx);
  if (!isEpisode(session)) return failure(id, session.code, session.message);
  const episodeId = session.kind === "http" ? session.key : `ep-${randomUUID()}`;
  const start = () => session.reset(reset, episodeId, ctx.viewer, "mcp");
  // over WS the caller already holds the session's turn
  const envelope = ctx.session ? await start() : await session.exclusive(ctx.sessions.clock, start);
  return success(id, resetResult(envelope));
}

async function sessionCreate(id: JsonRpcId, params: Record<string, unknown>, ctx: McpRpcContext) {
  if (ctx.session) return success(id, { session_id: ctx.session.key });
  const { session_id: _ignored, ...resetFields } = params;
  const reset = parseResetParams(resetFields);
  const episodeId = reset.episode_id ?? `ep-${randomUUID()}`;
  if (ctx.sessions.getHttp(episodeId)) {
    return failure(id, JSON_RPC.invalidParams, `session ${quoteInput(episodeId, 64)} exists already`);
  }
  const session = ctx.sessions.createHttp(episodeId, true);
  try {
    const envelope = await session.exclusive(ctx.sessions.clock, () =>
      session.reset(reset, episodeId, ctx.viewer, "mcp"),
    );
    return success(id, {
      session_id: episodeId,
      observation: envelope.observation as unknown as JsonValue,
      metadata: envelope.metadata,
    });
  } catch (err) {
    ctx.sessions.close(session, "reset failed");
    throw err;
  }
}

function sessionClose(id: JsonRpcId, params: Record<string, unknown>, ctx: McpRpcContext): JsonRpcResponse {
  const sid = params.session_id;
  if (typeof sid !== "string" || sid === "") {
    return failure(id, JSON_RPC.invalidParams, "Invalid params - 'session_id' is required");
  }
  if (ctx.session) {
    return failure(id, JSON_RPC.invalidRequest, "a WebSocket session closes with the close message");
  }
  const session = ctx.sessions.getHttp(sid);
  if (!session) return failure(id, JSON_RPC.invalidParams, `Unknown session_id: ${quoteInput(sid, 64)}`);
  ctx.sessions.close(session, "closed by client");
  return success(id, { session_id: sid, closed: true });
}
