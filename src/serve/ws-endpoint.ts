import { randomUUID } from "node:crypto";
import type { IncomingMessage, Server } from "node:http";
import type { Duplex } from "node:stream";
import { type RawData, type WebSocket, WebSocketServer } from "ws";
import type { EnvSpec } from "../core/contracts.ts";
import { WIRE_ERRORS } from "../core/error-catalogue.ts";
import { errorMessage } from "../core/errors.ts";
import type { JsonObject } from "../core/json.ts";
import { quoteInput } from "../core/quote-input.ts";
import { parseFork, parseGroupId, parseGroupSize, parseStepBatch } from "./batch-protocol.ts";
import { CLIENT_VIEW, type Viewer } from "./disclosure.ts";
import type { Episode } from "./episode.ts";
import { DEFAULT_JSON_LIMITS, type JsonLimits } from "./json-limits.ts";
import {
  handleMcpRpc,
  isNotification,
  JSON_RPC,
  type JsonRpcResponse,
  type McpRpcContext,
} from "./mcp-rpc.ts";
import {
  type ConnectionScope,
  connectionScope,
  forkEpisode,
  groupResult,
  openGroup,
  stepBatch,
} from "./multi-session.ts";
import {
  parseAction,
  parseJsonText,
  parseResetParams,
  parseWsMessage,
  ServeError,
  type ServeErrorCode,
  type StepEnvelope,
  type WsClientMessage,
  type WsServerMessage,
} from "./protocol.ts";
import { EVICTED, type SessionManager } from "./sessions.ts";
import { DEFAULT_WS_FLOW, newWsFlowStats, WsFlow, type WsFlowLimits, type WsFlowStats } from "./ws-flow.ts";

export interface WsEndpointDeps {
  sessions: SessionManager;
  /** The served spec (its tools answer the `mcp` message's `tools/list`). */
  spec: EnvSpec;
  authorized: (authorization: string | undefined | null, query?: string | null) => boolean;
  /** Who the upgrade's token makes the connection (`disclosure.ts`). Default: a client. */
  viewerOf?: (authorization: string | undefined | null, query?: string | null) => Viewer;
  /** DNS-rebinding guard on the Host header. */
  hostAllowed: (host: string | undefined | null) => boolean;
  /** Cross-site guard on the upgrade's Origin header (always true without an Origin). */
  originAllowed?: (origin: string | undefined | null) => boolean;
  /** Nesting and string-length limits on message JSON. */
  jsonLimits?: JsonLimits;
  /** Largest frame in bytes; a bigger one closes the connection (1009). */
  maxPayloadBytes: number;
  /**
   * Ping period; a connection that has not answered the previous ping is dropped. 0 = off. Only a
   * pong counts (a client that sends but does not read its replies never answers one).
   */
  heartbeatMs: number;
  /** Per-connection send buffer and unanswered-request limits (`ws-flow.ts`). */
  flow?: WsFlowLimits;
}

export interface WsEndpoint {
  readonly server: WebSocketServer;
  /** Open connections. */
  connections(): number;
  /** Backpressure since start: pauses, dropped connections, the largest send buffer reached. */
  flowStats(): WsFlowStats;
  close(): void;
}

/**
 * Close codes: 1013 try again later (capacity), 4000 idle session reclaimed (past the idle timeout, or
 * evicted when the server needed its slot), 1001 server going away.
 */
export const WS_CLOSE = { capacity: 1013, idle: 4000, goingAway: 1001, normal: 1000 } as const;

function rejectUpgrade(
  socket: Duplex,
  text: string,
  code: ServeErrorCode,
  status: number = WIRE_ERRORS[code].status,
): void {
  const body = JSON.stringify({ message: text, code, detail: text });
  const extra = status === 401 ? 'WWW-Authenticate: Bearer realm="proving"\r\n' : "";
  socket.end(
    `HTTP/1.1 ${status} ${text}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${extra}Connection: close\r\n\r\n${body}`,
  );
}

function rawText(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString("utf8");
  if (Array.isArray(data)) return Buffer.concat(data).toString("utf8");
  return Buffer.from(data).toString("utf8");
}

/**
 * The WebSocket half: `/ws`, one session per connection, OpenEnv's message types; `/mcp`, JSON-RPC
 * (OpenEnv's MCP WebSocket), one session per connection too. Replies keep the
 * order of requests. Connections that stop answering pings (half-open: the peer vanished without a
 * close) are terminated and their sessions freed, so leaked clients cannot pin the server at capacity.
 */
export function attachWebSocket(http: Server, deps: WsEndpointDeps): WsEndpoint {
  const { sessions, spec } = deps;
  const limits = deps.jsonLimits ?? DEFAULT_JSON_LIMITS;
  const viewerOf = deps.viewerOf ?? (() => CLIENT_VIEW);
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: deps.maxPayloadBytes,
    perMessageDeflate: false,
  });
  /** Whether each connection answered the last heartbeat's ping. */
  const alive = new Map<WebSocket, { answered: boolean }>();
  const flowLimits = deps.flow ?? DEFAULT_WS_FLOW;
  const flowStats = newWsFlowStats();

  http.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on("error", () => socket.destroy());
    let url: URL;
    try {
      url = new URL(req.url ?? "/", "http://localhost");
    } catch {
      return rejectUpgrade(socket, "Bad Request", "VALIDATION_ERROR", 400);
    }
    if (url.pathname !== "/ws" && url.pathname !== "/mcp")
      return rejectUpgrade(socket, "Not Found", "NOT_FOUND");
    if (!deps.hostAllowed(req.headers.host)) return rejectUpgrade(socket, "Forbidden", "FORBIDDEN_HOST");
    if (deps.originAllowed && !deps.originAllowed(req.headers.origin)) {
      return rejectUpgrade(socket, "Forbidden", "FORBIDDEN_ORIGIN");
    }
    if (!deps.authorized(req.headers.authorization, url.searchParams.get("access_token"))) {
      return rejectUpgrade(socket, "Unauthorized", "UNAUTHORIZED");
    }
    const viewer = viewerOf(req.headers.authorization, url.searchParams.get("access_token"));
    const mcp = url.pathname === "/mcp";
    wss.handleUpgrade(req, socket, head, (ws) => onConnection(ws, viewer, mcp));
  });

  function send(ws: WebSocket, message: WsServerMessage): void {
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(message));
  }

  function errorMessageOf(err: unknown): WsServerMessage {
    const e =
      err instanceof ServeError
        ? err
        : new ServeError("EXECUTION_ERROR", `internal error: ${errorMessage(err)}`);
    return { type: "error", data: e.toData() as { message: string; code: string } };
  }

  function onConnection(ws: WebSocket, viewer: Viewer, mcp: boolean): void {
    const liveness = { answered: true };
    alive.set(ws, liveness);
    ws.on("pong", () => {
      liveness.answered = true;
    });
    ws.on("error", () => ws.terminate());
    ws.on("close", () => alive.delete(ws));
    let session: Episode;
    try {
      session = sessions.createWs();
    } catch (err) {
      if (!mcp) send(ws, errorMessageOf(err));
      ws.close(WS_CLOSE.capacity, "capacity reached");
      return;
    }
    session.onEvict = (reason) => {
      if (!mcp) send(ws, errorMessageOf(new ServeError("SESSION_ERROR", `session closed: ${reason}`)));
      const idle = reason === "idle timeout" || reason === EVICTED;
      ws.close(idle ? WS_CLOSE.idle : WS_CLOSE.goingAway, reason.slice(0, 100));
    };
    // the sessions this connection's groups and forks open: closed with it
    const scope = connectionScope(sessions, session);
    ws.on("close", () => {
      session.onEvict = undefined;
      sessions.close(session, "connection closed");
      scope.closeAll("connection closed");
    });
    const flow = new WsFlow(ws, flowLimits, flowStats);
    if (mcp) {
      onMcpConnection(ws, viewer, session, flow);
      return;
    }
    // Per connection, not per message: the reply handlers and the operation's closure.
    const onReply = (reply: WsServerMessage | null) => {
      if (reply) flow.reply(JSON.stringify(reply));
      else {
        flow.settled();
        session.onEvict = undefined;
        sessions.close(session, "closed by client");
        scope.closeAll("closed by client");
        ws.close(WS_CLOSE.normal, "closed");
      }
    };
    const onFailure = (err: unknown) => flow.reply(JSON.stringify(errorMessageOf(err)));
    // a step's reply, `{"type":"observation","data":...}`, serialized without building the message object
    const onObservation = (data: StepEnvelope) =>
      flow.reply(`{"type":"observation","data":${JSON.stringify(data)}}`);
    const stepOpts = { viewer };
    /** A step's `admissible` flag is the request's, not the action's: taken out of `data`. */
    const admissibleStepOpts = (data: JsonObject) => {
      const asked = data.admissible;
      delete data.admissible;
      if (typeof asked !== "boolean") {
        throw new ServeError("VALIDATION_ERROR", "step.data.admissible: expected a boolean");
      }
      return asked ? { viewer, admissible: true } : stepOpts;
    };
    ws.on("message", (data) => {
      if (!flow.received()) return;
      let msg: WsClientMessage | ServeError;
      try {
        msg = parseWsMessage(rawText(data), limits);
      } catch (err) {
        msg = err instanceof ServeError ? err : new ServeError("INVALID_JSON", errorMessage(err));
      }
      // Every reply, errors included, goes through the session's queue so replies keep request order.
      // An idle session starts the operation at once (`Episode.exclusive`): the reply is sent as soon
      // as the world's step settles, with no hop through the queue.
      if (!(msg instanceof ServeError) && msg.type === "step") {
        // The per-step hot path: no async wrapper around the step, no reply object to serialize.
        const data = msg.data;
        session
          .exclusive(sessions.clock, () => {
            const opts = data.admissible === undefined ? stepOpts : admissibleStepOpts(data);
            return session.step(parseAction(data, "step.data"), opts);
          })
          .then(onObservation, onFailure);
        return;
      }
      session.exclusive(sessions.clock, () => handle(scope, viewer, msg)).then(onReply, onFailure);
    });
  }

  /**
   * `WS /mcp`: OpenEnv's MCP over a WebSocket. Each text message is one JSON-RPC 2.0 request and gets
   * its reply (a notification none), in order; the connection's own session is the episode its
   * `tools/call`s step, as for the `/ws` `mcp` message.
   */
  function onMcpConnection(ws: WebSocket, viewer: Viewer, session: Episode, flow: WsFlow): void {
    const ctx = { spec, sessions, session, viewer };
    const onRpc = (reply: JsonRpcResponse | null) => {
      if (reply) flow.reply(JSON.stringify(reply));
      else flow.settled();
    };
    const onFailure = (err: unknown) =>
      flow.reply(
        JSON.stringify({
          jsonrpc: "2.0",
          id: null,
          error: { code: JSON_RPC.serverError, message: errorMessage(err) },
        }),
      );
    ws.on("message", (data) => {
      if (!flow.received()) return;
      const text = rawText(data);
      session.exclusive(sessions.clock, () => mcpReply(text, ctx)).then(onRpc, onFailure);
    });
  }

  async function mcpReply(text: string, ctx: McpRpcContext): Promise<JsonRpcResponse | null> {
    let request: unknown;
    try {
      request = parseJsonText(text, limits);
    } catch (err) {
      const parse = err instanceof ServeError && err.code === "INVALID_JSON";
      return {
        jsonrpc: "2.0",
        id: null,
        error: parse
          ? { code: JSON_RPC.parseError, message: "Parse error" }
          : { code: JSON_RPC.invalidRequest, message: errorMessage(err) },
      };
    }
    if (isNotification(request)) return null;
    return handleMcpRpc(request, ctx);
  }

  /** Every message but `step`, in the connection's own session's turn (`scope.held`). */
  async function handle(
    scope: ConnectionScope,
    viewer: Viewer,
    msg: Exclude<WsClientMessage, { type: "step" }> | ServeError,
  ): Promise<WsServerMessage | null> {
    if (msg instanceof ServeError) throw msg;
    const session = scope.held;
    switch (msg.type) {
      case "reset": {
        const params = parseResetParams(msg.data);
        const group = parseGroupSize(msg.data);
        if (group !== undefined)
          return { type: "reset_group", data: await openGroup(scope, params, group, viewer) };
        const id = params.episode_id ?? `ep-${randomUUID()}`;
        // a reset naming one of the connection's other sessions restarts that one
        if (scope.lost(id)) {
          // not the connection's own session under a reused id: that session is gone
          throw new ServeError(
            "SESSION_ERROR",
            `episode_id "${quoteInput(id, 64)}" names a session this connection no longer has`,
          );
        }
        const other = scope.find(id);
        if (other && other !== session) {
          return {
            type: "observation",
            data: await other.exclusive(sessions.clock, () => other.reset(params, id, viewer)),
          };
        }
        return { type: "observation", data: await session.reset(params, id, viewer) };
      }
      case "step_batch":
        return {
          type: "step_batch",
          data: { results: await stepBatch(scope, parseStepBatch(msg.data), viewer) },
        };
      case "fork": {
        const { episodeId, n } = parseFork(msg.data);
        return { type: "fork", data: await forkEpisode(scope, episodeId, n, viewer) };
      }
      case "group":
        return {
          type: "group",
          data: groupResult(sessions, parseGroupId(msg.data)) as unknown as JsonObject,
        };
      case "state":
        return { type: "state", data: session.state(viewer) };
      case "mcp":
        return {
          type: "mcp",
          data: (await handleMcpRpc(msg.data, { spec, sessions, session, viewer })) as unknown as JsonObject,
        };
      case "close":
        return null;
    }
  }

  const heartbeat =
    deps.heartbeatMs > 0
      ? setInterval(() => {
          for (const [ws, liveness] of alive) {
            if (!liveness.answered) {
              ws.terminate();
              continue;
            }
            liveness.answered = false;
            try {
              ws.ping();
            } catch {
              ws.terminate();
            }
          }
        }, deps.heartbeatMs)
      : undefined;
  heartbeat?.unref();

  return {
    server: wss,
    connections: () => wss.clients.size,
    flowStats: () => ({ ...flowStats }),
    close() {
      if (heartbeat) clearInterval(heartbeat);
      for (const ws of wss.clients) ws.terminate();
      wss.close();
    },
  };
}
