/**
 * OpenEnv's MCP mode: JSON-RPC 2.0 `tools/list` and `tools/call` on the served episode's tools, at
 * `POST /mcp` and as the WebSocket `mcp` message. A `tools/call` is one step of an episode: over a
 * WebSocket the connection's own; over HTTP the one `params.session_id` names (an `episode_id` from
 * `/reset`, or from the `openenv/session/create` method, which resets a new episode). The reply is an
 * MCP `CallToolResult` whose text content and `structuredContent` (and `data`, where OpenEnv's client
 * looks) are the world's JSON result; `_meta` carries `done`, `reward`, `step_count` and, at the end,
 * the `verdict`. A bad call is an error result (`isError: true`), never a protocol error.
 */
import { randomUUID } from "node:crypto";
import type { EnvSpec } from "../core/contracts.ts";
import { errorMessage } from "../core/errors.ts";
import type { JsonObject, JsonValue } from "../core/json.ts";
import { quoteInput } from "../core/quote-input.ts";
import type { Viewer } from "./disclosure.ts";
import type { Episode } from "./episode.ts";
import { parseResetParams, ServeError, type StepEnvelope } from "./protocol.ts";
import type { SessionManager } from "./sessions.ts";

/** JSON-RPC 2.0 error codes (the standard ones, and -32000 for a server error carrying a wire code). */
export const JSON_RPC = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  serverError: -32000,
} as const;

export type JsonRpcId = string | number | null;

export interface JsonRpcResponse {
  jsonrpc: "2.0";
  id: JsonRpcId;
  result?: JsonValue;
  error?: { code: number; message: string; data?: JsonValue };
}

export interface McpRpcContext {
  spec: EnvSpec;
  sessions: SessionManager;
  /** The WebSocket connection's session; absent over HTTP. */
  session?: Episode;
  /** Who asks (the operator token's holder or a client; `disclosure.ts`). */
  viewer: Viewer;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

const failure = (id: JsonRpcId, code: number, message: string, data?: JsonValue): JsonRpcResponse => ({
  jsonrpc: "2.0",
  id,
  error: { code, message, ...(data !== undefined ? { data } : {}) },
});

const success = (id: JsonRpcId, result: JsonValue): JsonRpcResponse => ({ jsonrpc: "2.0", id, result });

/** The MCP tool list of a spec: `{name, description, inputSchema}`. */
export function mcpTools(spec: EnvSpec): JsonObject[] {
  return spec.tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.input_schema }));
}

/** A step envelope as an MCP `CallToolResult`. */
export function callToolResult(envelope: StepEnvelope): JsonObject {
  const obs = envelope.observation as unknown as JsonObject;
  const result = (obs.result ?? obs) as JsonValue;
  const isError = isObject(result) && result.ok === false;
  const meta = envelope.metadata;
  return {
    content: [{ type: "text", text: JSON.stringify(result) }],
    structuredContent: result,
    data: result,
    isError,
    _meta: {
      done: envelope.done,
      reward: envelope.reward,
      episode_id: meta.episode_id ?? null,
      step_count: meta.step_count ?? null,
      now: meta.now ?? null,
      ...(meta.verdict !== undefined ? { verdict: meta.verdict } : {}),
    },
  };
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
      case "initialize":
        return success(id, {
          protocolVersion: typeof params.protocolVersion === "string" ? params.protocolVersion : "2025-06-18",
          capabilities: { tools: {} },
          serverInfo: { name: ctx.spec.id, version: ctx.spec.id.split("@")[1] ?? "0" },
        });
      case "ping":
        return success(id, {});
      case "tools/list":
        return success(id, { tools: mcpTools(ctx.spec) });
      case "tools/call":
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
  const sid = params.session_id;
  if (typeof sid !== "string" || sid === "") {
    return {
      code: JSON_RPC.invalidParams,
      message:
        "tools/call over HTTP needs params.session_id: an episode_id from POST /reset or from openenv/session/create",
    };
  }
  const session = ctx.sessions.getHttp(sid);
  if (!session)
    return { code: JSON_RPC.invalidParams, message: `Unknown session_id: ${quoteInput(sid, 64)}` };
  return session;
}

async function toolsCall(id: JsonRpcId, params: Record<string, unknown>, ctx: McpRpcContext) {
  const name = params.name;
  if (typeof name !== "string" || name === "")
    return failure(id, JSON_RPC.invalidParams, "Missing 'name' in params");
  const args = params.arguments ?? {};
  if (!isObject(args)) return failure(id, JSON_RPC.invalidParams, "'arguments' must be an object");
  if (!ctx.spec.tools.some((t) => t.name === name)) {
    return failure(id, JSON_RPC.invalidParams, `Tool not found: ${quoteInput(name, 64)}`);
  }
  const session = sessionOf(params, ctx);
  if (!isEpisode(session)) return failure(id, session.code, session.message);
  const run = () =>
    session.step({ tool: name, args: structuredClone(args) as JsonObject }, { viewer: ctx.viewer });
  // over WS the caller already holds the session's turn
  const envelope = ctx.session ? await run() : await session.exclusive(ctx.sessions.clock, run);
  return success(id, callToolResult(envelope));
}

async function sessionCreate(id: JsonRpcId, params: Record<string, unknown>, ctx: McpRpcContext) {
  if (ctx.session) return success(id, { session_id: ctx.session.key });
  const { session_id: _ignored, ...resetFields } = params;
  const reset = parseResetParams(resetFields);
  const episodeId = reset.episode_id ?? `ep-${randomUUID()}`;
  if (ctx.sessions.getHttp(episodeId)) {
    return failure(id, JSON_RPC.invalidParams, `session ${quoteInput(episodeId, 64)} exists already`);
  }
  const session = ctx.sessions.createHttp(episodeId);
  try {
    const envelope = await session.exclusive(ctx.sessions.clock, () =>
      session.reset(reset, episodeId, ctx.viewer),
    );
    return success(id, { session_id: episodeId, observation: envelope.observation as unknown as JsonValue });
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
